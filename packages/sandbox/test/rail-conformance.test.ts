/**
 * The sandbox rail against the Rail conformance kit (the subject: rail-subject.ts).
 */
import { SandboxRail } from "@paycore/sandbox"
import { railConformance } from "@paycore/testkit/rail-conformance"
import { sandboxRailSubject } from "./rail-subject.ts"

railConformance("SandboxRail", sandboxRailSubject)
railConformance("SandboxRail, speedUp 3600", { ...sandboxRailSubject, layer: () => SandboxRail({ speedUp: 3600 }) })
