/**
 * OpenTelemetry for paycore through effect's own integration (`@effect/opentelemetry`), and the Prometheus text of the
 * engine's metrics (docs/operations.md, "Telemetry").
 *
 * An embedding host composes `telemetryLayer` into the context it builds `makeApp` in (or runs its own effects in):
 * the engine's spans (`Customers.create`, `Store.transaction`, `POST /2025-10-13/quotes`) go to its span processors,
 * and effect's metrics (`paycore_*`) to its metric readers. `serve` builds it from the standard environment
 * (`telemetryLayerFromEnv`): nothing is exported while `OTEL_EXPORTER_OTLP_ENDPOINT` is unset.
 */
import * as OtelMetrics from "@effect/opentelemetry/OtelMetrics"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import * as OtelResource from "@effect/opentelemetry/Resource"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { type MetricReader, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { jsonLogger } from "@paycore/http"
import { Config, type Context, Effect, Layer, Logger, Option } from "effect"
import { PrometheusMetrics } from "effect/observability"

/** What `telemetryLayer` exports to: span processors and metric readers of the OpenTelemetry SDK. */
export interface TelemetryOptions {
  /** `service.name` of the resource (else `OTEL_SERVICE_NAME`, else `paycore`). */
  readonly serviceName?: string | undefined
  /** Where spans go (an OTLP exporter behind a `BatchSpanProcessor`, an `InMemorySpanExporter` in a test); none: no tracer. */
  readonly spanProcessors?: ReadonlyArray<SpanProcessor> | undefined
  /** Who reads the metrics (a `PeriodicExportingMetricReader` over an OTLP exporter); none: no OpenTelemetry metrics. */
  readonly metricReaders?: ReadonlyArray<MetricReader> | undefined
}

/**
 * The OpenTelemetry tracer (effect's `Tracer`, over a `BasicTracerProvider`) and the metrics bridge (effect's metric
 * registry read by `metricReaders`), flushed and shut down when the layer's scope closes. The resource is
 * `OTEL_RESOURCE_ATTRIBUTES` with the service name. With no processor and no reader it provides nothing: the engine
 * then runs untraced (its hot commands skip their spans) and its metrics stay readable as Prometheus text.
 */
export const telemetryLayer = (options: TelemetryOptions): Layer.Layer<never> => {
  const processors = options.spanProcessors ?? []
  const readers = options.metricReaders ?? []
  if (processors.length === 0 && readers.length === 0) return Layer.empty
  const resource = Layer.unwrap(
    Effect.map(Config.option(Config.String("OTEL_SERVICE_NAME")), (fromEnv) =>
      OtelResource.layerFromEnv({
        "service.name": options.serviceName ?? Option.getOrElse(fromEnv, () => "paycore")
      })
    ).pipe(Effect.orDie)
  )
  const tracer =
    processors.length === 0
      ? Layer.empty
      : OtelTracer.layerWithoutOtelTracer.pipe(
          Layer.provide(OtelTracer.layerTracer),
          Layer.provide(
            Layer.effect(
              OtelTracer.OtelTracerProvider,
              Effect.flatMap(Effect.service(OtelResource.Resource), (resource) =>
                Effect.acquireRelease(
                  Effect.sync(() => new BasicTracerProvider({ resource, spanProcessors: [...processors] })),
                  (provider) =>
                    Effect.promise(() => provider.forceFlush().finally(() => provider.shutdown())).pipe(
                      Effect.ignore,
                      Effect.timeoutOption(3000)
                    )
                )
              )
            )
          )
        )
  const metrics =
    readers.length === 0
      ? Layer.empty
      : OtelMetrics.layer(() => readers as unknown as readonly [MetricReader, ...Array<MetricReader>])
  return Layer.mergeAll(tracer, metrics).pipe(Layer.provide(resource))
}

/**
 * `telemetryLayer` from the standard OpenTelemetry environment: with `OTEL_EXPORTER_OTLP_ENDPOINT` set
 * (`http://collector:4318`), spans in batches to its `/v1/traces` and metrics every
 * `OTEL_METRIC_EXPORT_INTERVAL` ms (default 60000) to its `/v1/metrics`, over OTLP/HTTP (JSON), as service
 * `OTEL_SERVICE_NAME` (default `paycore`). `OTEL_TRACES_EXPORTER=none` or `OTEL_METRICS_EXPORTER=none` turns one off.
 * Without the endpoint nothing is exported.
 */
export const telemetryLayerFromEnv: Layer.Layer<never> = Layer.unwrap(
  Effect.gen(function* () {
    const endpoint = yield* Config.option(Config.String("OTEL_EXPORTER_OTLP_ENDPOINT"))
    if (Option.isNone(endpoint) || endpoint.value.trim() === "") return Layer.empty
    const traces = (yield* Config.String("OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp"))) !== "none"
    const metrics = (yield* Config.String("OTEL_METRICS_EXPORTER").pipe(Config.withDefault("otlp"))) !== "none"
    const intervalMillis = yield* Config.Int("OTEL_METRIC_EXPORT_INTERVAL").pipe(Config.withDefault(60_000))
    const base = endpoint.value.replace(/\/+$/, "")
    return telemetryLayer({
      spanProcessors: traces ? [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` }))] : [],
      metricReaders: metrics
        ? [
            new PeriodicExportingMetricReader({
              exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
              exportIntervalMillis: intervalMillis
            })
          ]
        : []
    })
  }).pipe(Effect.orDie)
)

/** The content type of the Prometheus text exposition format, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/**
 * The metrics of effect's registry in `context` (the process's, unless a host provides its own `MetricRegistry`) in
 * the Prometheus text exposition format: what `GET /metrics` of `serve` answers.
 */
export const prometheusText = (context: Context.Context<never>): string => PrometheusMetrics.formatUnsafe(context)

/**
 * What `serve` reads of telemetry from its environment: the OpenTelemetry export (`telemetryLayerFromEnv`), the log
 * format (`PAYCORE_LOG_FORMAT=json`: JSON lines on stdout, one per request among them; else effect's default
 * human-readable logger and no request lines), and `PAYCORE_METRICS=off` (no `GET /metrics`).
 */
export const serveTelemetry = Effect.fnUntraced(function* () {
  const context = yield* Layer.build(telemetryLayerFromEnv)
  const json = (yield* Config.String("PAYCORE_LOG_FORMAT").pipe(Config.withDefault("text"))).trim() === "json"
  const metrics = (yield* Config.String("PAYCORE_METRICS").pipe(Config.withDefault("on"))).trim() !== "off"
  const withTelemetry = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const traced = Effect.provideContext(effect, context as Context.Context<never>) as Effect.Effect<A, E, R>
    return json ? Effect.provideService(traced, Logger.CurrentLoggers, new Set([jsonLogger])) : traced
  }
  return { withTelemetry, logRequests: json, metrics }
})
