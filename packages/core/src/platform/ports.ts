import type { Directory } from "../ports/directory.ts"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { PlatformPrincipal } from "./model.ts"

/** What the platform's use cases run on (API tokens, the platform config), resolved once when a layer is built. */
export interface PlatformPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
}

/** A verified credential, kept in memory until `CREDENTIAL_CACHE_TTL_MS` after it was read. */
export interface CachedCredential {
  readonly tokenId: string
  readonly clientId: string
  readonly secretHash: Uint8Array
  readonly principal: PlatformPrincipal
  readonly loadedAt: number
}

/** The API tokens' ports: the platform's, and the credential cache its layer creates. */
export interface TokenPorts extends PlatformPorts {
  /** Keyed by clientId and by token id; only tokens found in the store get an entry. */
  readonly cache: Map<string, CachedCredential>
}

/** What discoveries read: the directory of institutions, UMA providers and VASPs. */
export interface DiscoveryPorts {
  readonly directory: Directory["Service"]
}
