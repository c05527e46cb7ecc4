/**
 * Who a miss budget counts (issue 31 item 7): unknown invitation codes and device codes are budgeted per caller, so
 * one caller guessing codes spends its own budget only and every other caller's real claim still goes through. A
 * caller is a string its binding chooses (the HTTP layer: the credential, else the peer's address; a host may give
 * its own key function); an in-process call that names none counts under `ENGINE_CALLER`, one budget for them all.
 */
import { sha256Hex } from "./digests.ts"

/** The caller of an operation called without one (an embedding host's own calls). */
export const ENGINE_CALLER = "engine"

/**
 * The caller as its counter keys hold it: a digest, so a key has one length whatever the caller string, and no
 * address or other key material lands in the store.
 */
export const callerKey = (caller: string | undefined): string => sha256Hex(caller ?? ENGINE_CALLER).slice(0, 32)
