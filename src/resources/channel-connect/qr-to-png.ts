import { GatewayError } from '../../core/errors.js';
import { hasPngSignature } from '../../internal/png-signature.js';

const DATA_URL = /^data:image\/png;base64,/i;

/**
 * Turns the QR of channel.qr_update (`qr_code`, a `data:image/png;base64,…` URL) or of a v3
 * channelsUpdates item (`qr`, bare base64 or a data URL) into PNG bytes, ready to save or serve.
 * Uses `atob`, so it runs in any runtime.
 * @throws GatewayError when the value is not a base64 PNG
 * @example
 * ```ts
 * hooks.on('channel.qr_update', async ({ data }) => {
 *   for (const { channel_id, qr_code } of data) await writeFile(`${channel_id}.png`, qrToPng(qr_code));
 * });
 * ```
 */
export function qrToPng(value: string): Uint8Array {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new GatewayError(
      'qrToPng: expected a base64 PNG or a data:image/png;base64 URL, got an empty value',
    );
  }
  const text = value.trim();
  if (text.startsWith('data:') && !DATA_URL.test(text)) {
    throw new GatewayError(
      `qrToPng: expected a data:image/png;base64 URL, got ${JSON.stringify(text.slice(0, 30))}…`,
    );
  }
  const base64 = text.replace(DATA_URL, '').replace(/\s+/g, '');
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    throw new GatewayError('qrToPng: the value is not valid base64');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  if (!hasPngSignature(bytes)) {
    throw new GatewayError('qrToPng: the decoded bytes are not a PNG image');
  }
  return bytes;
}
