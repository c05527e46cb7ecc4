#!/usr/bin/env node
/** `npx paycore …`: the CLI's entry point (bin of @paycore/cli). */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { run } from "./index.ts"

run(process.argv.slice(2)).pipe(
  Effect.provide(Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer)),
  NodeRuntime.runMain
)
