/**
 * The engine a model run drives: paycore's `EngineLayer` over the caller's ports, in one `ManagedRuntime`, on
 * effect's `TestClock` (time moves only when a command moves it), with its webhook endpoint set and a recording
 * webhook transport behind it.
 */
import { EngineLayer, PlatformConfigService, type WebhookTransport } from "@paycore/core"
import { Effect, type Exit, Layer, ManagedRuntime } from "effect"
import { TestClock } from "effect/testing"
import { makeWebhookRecorder, type WebhookRecorder } from "../webhook-recorder.ts"

/** What `EngineLayer` needs from outside: the ports (store, rail, FX, KYC, notifier, ids, signer...). */
export type EnginePorts = Layer.Services<typeof EngineLayer>

/** The ports a model run takes from its caller: all of them but the webhook transport, which the harness records. */
export type ModelPorts = Exclude<EnginePorts, WebhookTransport>

/** Everything a command can use: every engine service and every port. */
export type EngineContext = Layer.Success<typeof EngineLayer> | EnginePorts

/** The instant a model run starts at (a Monday, noon UTC), the same for every run so that a seed replays. */
export const MODEL_EPOCH = Date.parse("2026-01-05T12:00:00.000Z")

/** Where the engine sends its webhooks: the harness's recorder gets them. */
export const MODEL_WEBHOOK_ENDPOINT = "https://receiver.example/paycore/webhooks"

/** One engine, fresh for each run of the property. */
export interface ModelEngine {
  /** Runs `effect` against the engine; a failure or defect rejects the promise. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, EngineContext>) => Promise<A>
  /** Runs `effect` and answers its `Exit`: for commands whose refusal is part of the game. */
  readonly exit: <A, E>(effect: Effect.Effect<A, E, EngineContext>) => Promise<Exit.Exit<A, E>>
  /** Moves the `TestClock` on by `seconds` (nothing runs by itself: a command then runs the workers). */
  readonly advance: (seconds: number) => Promise<void>
  /** Every webhook the engine POSTed, as its receiver got it. */
  readonly webhooks: WebhookRecorder
  readonly dispose: () => Promise<void>
}

/** Builds the engine over `ports` (built anew for each engine: a memory store starts empty). */
export const startModelEngine = async (ports: Layer.Layer<ModelPorts, unknown>): Promise<ModelEngine> => {
  const webhooks = makeWebhookRecorder()
  const runtime = ManagedRuntime.make(
    EngineLayer.pipe(Layer.provideMerge(Layer.merge(ports, webhooks.layer)), Layer.provideMerge(TestClock.layer()))
  )
  await runtime.runPromise(
    Effect.andThen(
      TestClock.setTime(MODEL_EPOCH),
      Effect.flatMap(PlatformConfigService, (config) => config.update({ webhookEndpoint: MODEL_WEBHOOK_ENDPOINT }))
    )
  )
  return {
    run: (effect) => runtime.runPromise(effect),
    // The layer is built (above): only the effect can fail.
    exit: <A, E>(effect: Effect.Effect<A, E, EngineContext>) =>
      runtime.runPromiseExit(effect) as Promise<Exit.Exit<A, E>>,
    advance: (seconds) => runtime.runPromise(TestClock.adjust(`${seconds} seconds`)),
    webhooks,
    dispose: () => runtime.dispose()
  }
}
