/**
 * What a Schema's AST tells without running its parser, for the listener's fast paths: which union member a value
 * can be (its literal properties, as a `status` or a `sourceType`), and whether a JSON value holds a field the Schema
 * does not declare. Each answer errs one way only: "cannot be" and "holds none" are certain, and where the AST is
 * not plain enough to say, the caller runs the parser.
 */
import { SchemaAST } from "effect"

/** A required property whose type is one of a few literals: `[name, the literals]`. */
export type Sentinel = readonly [PropertyKey, ReadonlySet<unknown>]

const literalsOf = (ast: SchemaAST.AST): ReadonlySet<unknown> | undefined => {
  if (ast.encoding !== undefined || ast.checks !== undefined) return undefined
  if (SchemaAST.isLiteral(ast)) return new Set([ast.literal])
  if (!SchemaAST.isUnion(ast) || !ast.types.every((type) => SchemaAST.isLiteral(type) && type.encoding === undefined))
    return undefined
  return new Set(ast.types.map((type) => (type as SchemaAST.Literal).literal))
}

/** The struct's required literal properties: a value without one of them is not of the schema. */
export const sentinelsOf = (ast: SchemaAST.AST): ReadonlyArray<Sentinel> => {
  if (!SchemaAST.isObjects(ast) || ast.encoding !== undefined) return []
  return ast.propertySignatures.flatMap((property): Array<Sentinel> => {
    const literals = SchemaAST.isOptional(property.type) ? undefined : literalsOf(property.type)
    return literals === undefined ? [] : [[property.name, literals]]
  })
}

/** False when `value` lacks one of the sentinels' literals (so it is not of their schema); true otherwise. */
export const admits = (sentinels: ReadonlyArray<Sentinel>, value: unknown): boolean => {
  if (sentinels.length === 0) return true
  if (typeof value !== "object" || value === null) return false
  for (const [name, literals] of sentinels)
    if (!literals.has((value as Record<PropertyKey, unknown>)[name])) return false
  return true
}

/** A scalar node: a JSON value of it has no properties. */
export const isScalar = (ast: SchemaAST.AST): boolean => SCALARS.has(ast._tag)

const SCALARS: ReadonlySet<string> = new Set([
  "String",
  "Number",
  "Boolean",
  "Null",
  "Literal",
  "Enum",
  "TemplateLiteral"
])

type Check = (value: unknown) => boolean

const always: Check = () => true
const never: Check = () => false

/**
 * For the encoded side of a schema (`SchemaAST.toEncoded`): a check that is true only when a JSON value (what
 * `JSON.parse` gives) holds no property the schema does not declare, at any depth. False means "not sure": a
 * property it does not declare, or a part of the schema it does not look into (records, declarations, unions whose
 * member the value's literals do not tell).
 */
export const excessFree = (ast: SchemaAST.AST): Check => {
  const memo = new Map<SchemaAST.AST, Check>()
  const compile = (node: SchemaAST.AST): Check => {
    let check = memo.get(node)
    if (check !== undefined) return check
    // A recursive schema meets itself again: the entry is filled below, before any value is checked.
    memo.set(node, (value) => check!(value))
    check = compileNode(node)
    memo.set(node, check)
    return check
  }
  const compileNode = (node: SchemaAST.AST): Check => {
    // A JSON object or array where a scalar is declared: the parser refuses it (no excess to report).
    if (isScalar(node)) return always
    switch (node._tag) {
      case "Suspend":
        return compile(node.thunk())
      case "Objects": {
        if (node.indexSignatures.length > 0) return never
        const properties = new Map(node.propertySignatures.map((p) => [p.name, compile(p.type)] as const))
        return (value) => {
          if (typeof value !== "object" || value === null || Array.isArray(value)) return true
          for (const key in value) {
            const check = properties.get(key)
            if (check === undefined || !check((value as Record<string, unknown>)[key])) return false
          }
          return true
        }
      }
      case "Arrays": {
        if (node.rest.length > 1) return never
        const elements = node.elements.map(compile)
        const rest = node.rest.length === 1 ? compile(node.rest[0]!) : undefined
        return (value) => {
          if (!Array.isArray(value)) return true
          for (let i = 0; i < value.length; i++) {
            const check = i < elements.length ? elements[i]! : rest
            if (check !== undefined && !check(value[i])) return false
          }
          return true
        }
      }
      case "Union": {
        const members = node.types.map((type) => ({ sentinels: sentinelsOf(type), check: compile(type) }))
        // Every member the value's literals leave must hold no excess: whichever the parser takes then does not.
        return (value) => {
          for (const member of members) if (admits(member.sentinels, value) && !member.check(value)) return false
          return true
        }
      }
      default:
        return never
    }
  }
  return compile(ast)
}
