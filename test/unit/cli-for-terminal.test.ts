// What the bin prints from the service (a channel id, a reason, an address) reaches a terminal:
// control characters in it are shown, never obeyed.
import { describe, expect, it } from 'vitest';
import { addressesMasked, forTerminal, jsonLine } from '../../src/cli/io.js';
import { callService } from '../../src/cli/service.js';
import { ChannelConnectError } from '../../src/core/errors.js';

const ESC = '\u001b';

describe('forTerminal', () => {
  it('shows control characters as \\u escapes and keeps the rest', () => {
    expect(forTerminal(`ch_1${ESC}[2J\u0007\u009b x — ✓`)).toBe('ch_1\\u001b[2J\\u0007\\u009b x — ✓');
  });

  it("a service error's message (a reason from a webhook) is printed without its control characters", async () => {
    const lines: string[] = [];
    const io = {
      out: (l: string) => lines.push(l),
      err: (l: string) => lines.push(l),
      readStdin: async () => '',
    };
    const reason = `qridle${ESC}]0;owned${ESC}\\`;
    for (const json of [false, true]) {
      await callService(io, json, [], async () => {
        throw new ChannelConnectError({ reason, channelId: `ch${ESC}[2J` });
      });
    }
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toContain(ESC);
  });
});

describe('addressesMasked', () => {
  it('masks each address in a text, wherever it starts', () => {
    const text = 'to https://h.example/x?secret=s1 and xhttps://h/y?secret=s2, (http://u:p@h/)';
    expect(addressesMasked(text)).toBe(
      'to https://h.example/x?secret=… and xhttps://h/y?secret=… (http://…@h/)',
    );
    expect(addressesMasked(`${'a'.repeat(50)}https://h/?secret=s3`)).not.toContain('s3');
  });

  it('takes linear time: a megabyte of letters (a receiver answer, a name) is read', () => {
    // a scan that backtracked over each start would take hours on a megabyte, past the test's time-out
    expect(addressesMasked('a'.repeat(1024 * 1024))).toHaveLength(1024 * 1024);
  });
});

describe('jsonLine', () => {
  it("masks a receiver's secret and keeps every other query value a script may need", () => {
    const value = {
      url: 'https://crm.example/hooks?account=7&secret=s3cr3t',
      authorization: 'https://connect.example/wapi?state=abc&sig=xyz',
      file: 'https://files.example/a.pdf?X-Amz-Signature=f00',
    };
    const line = jsonLine(value);
    expect(line).not.toContain('s3cr3t');
    expect(JSON.parse(line)).toEqual({ ...value, url: 'https://crm.example/hooks?account=7&secret=…' });
  });
});
