// The real OpenTelemetry SDK as a Node application sets it up: a registered context manager,
// in-memory span and metric exporters, and instrument() on them.
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll } from 'vitest';
import { instrument } from '../../src/otel.js';

/** Registers the async-hooks context manager for the file's tests, and removes it after. */
export function useContextManager(): void {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    context.disable();
  });
}

/** instrument() on in-memory exporters; `stop` ends it. `metrics()` reads every metric by name. */
export function instrumented() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const stop = instrument({ tracerProvider, meterProvider });
  const metrics = async () => {
    await reader.forceFlush();
    const all =
      metricExporter
        .getMetrics()
        .at(-1)
        ?.scopeMetrics.flatMap((s) => s.metrics) ?? [];
    return new Map(all.map((m) => [m.descriptor.name, m]));
  };
  return { exporter, tracerProvider, stop, metrics };
}
