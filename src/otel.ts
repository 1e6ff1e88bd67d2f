/**
 * `messaging-gateway-sdk/otel`: OpenTelemetry spans and metrics from the SDK's diagnostics
 * channels, through `@opentelemetry/api` (an optional peer dependency) and your providers.
 * @packageDocumentation
 */
export {
  type InstrumentOptions,
  instrument,
  SEMCONV_VERSION,
  type StopInstrumenting,
} from './otel/instrument.js';
