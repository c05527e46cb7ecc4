import { Schema } from "effect"
import { UmaAddress } from "../shared/schemas.ts"

// Invitation codes and links (pure; IN-02, design section 2 "Numbers", Q3).

/** Random bytes of a code: 8 lowercase hex digits from the CSPRNG (not a time-ordered UUID prefix). */
export const INVITATION_CODE_RANDOM_BYTES = 4

/** A code as typed: case and surrounding spaces do not matter; anything but 8 hex digits is no code. */
export const normalizeInvitationCode = (input: string): string | undefined => {
  const code = input.trim().toLowerCase()
  return /^[0-9a-f]{8}$/.test(code) ? code : undefined
}

/** The claim link on the platform's UMA domain. */
export const claimUrl = (umaDomain: string, code: string): string => `https://${umaDomain}/i/${code}`

/** An UMA address `$name@domain` (the shared schema's form). */
export const isUmaAddress: (value: string) => boolean = Schema.is(UmaAddress)

/** The UTC hour `YYYY-MM-DDTHH` of an instant (the inviter's budget window). */
export const utcHour = (iso: string): string => iso.slice(0, 13)

/** The UTC minute `YYYY-MM-DDTHH:MM` of an instant (the miss budget window). */
export const utcMinute = (iso: string): string => iso.slice(0, 16)

/** Whole seconds (at least 1) to the end of the window of `windowMs` that `nowMs` is in. */
export const secondsToWindowEnd = (nowMs: number, windowMs: number): number =>
  Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / 1000))
