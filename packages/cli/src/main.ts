#!/usr/bin/env node
/** `npx paycore …`: the CLI's entry point (bin of @paycore/cli). */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, Layer, Runtime } from "effect"
import { FetchHttpClient } from "effect/http"
import { run } from "./index.ts"

// Ctrl-C or SIGTERM interrupts the command; a command stopped so (`serve` drained gracefully, `listen` ended) exits
// 0, as `npm start` does; a failure keeps its code. @paycore/server's `exitCodeOnStop`, which is not loaded here.
const exitCodeOnStop: Runtime.Teardown = (exit, onExit) =>
  Runtime.defaultTeardown(exit, (code) => onExit(code === 130 ? 0 : code))

run(process.argv.slice(2)).pipe(
  Effect.provide(Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer)),
  NodeRuntime.runMain({ teardown: exitCodeOnStop })
)
