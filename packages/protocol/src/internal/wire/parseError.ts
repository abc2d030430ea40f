/** The one-line detail of a refused value: the first offending field and what was expected there. */
import type { ParseResult } from "effect"
import { SchemaAST } from "effect"

const describeAst = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "TypeLiteral":
      return "object"
    case "TupleType":
      return "array"
    case "Refinement":
    case "Transformation": {
      const identifier = SchemaAST.getIdentifierAnnotation(ast)
      return identifier._tag === "Some" ? identifier.value : String(ast)
    }
    default:
      return String(ast)
  }
}

const showActual = (actual: unknown): string => {
  if (actual === undefined) return "undefined"
  const text = JSON.stringify(actual)
  if (text === undefined) return String(actual)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`),
    ""
  )

const describeIssue = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): string => {
  const at = (text: string) => (path.length === 0 ? text : `${pathText(path)}: ${text}`)
  switch (issue._tag) {
    case "Pointer":
      return describeIssue(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Missing":
      return `missing field "${pathText(path)}"`
    case "Unexpected":
      return path.length === 0 ? "unexpected field" : `unexpected field "${pathText(path)}"`
    case "Composite": {
      if (SchemaAST.isUnion(issue.ast)) {
        return at(`expected ${describeAst(issue.ast)}, got ${showActual(issue.actual)}`)
      }
      const first = Array.isArray(issue.issues) ? issue.issues[0] : issue.issues
      return describeIssue(first as ParseResult.ParseIssue, path)
    }
    case "Refinement":
      // A named refinement (e.g. "integer >= 0") describes itself better than its inner parts.
      if (issue.kind === "From" && SchemaAST.getIdentifierAnnotation(issue.ast)._tag === "None") {
        return describeIssue(issue.issue, path)
      }
      return at(`expected ${describeAst(issue.ast)}, got ${showActual(issue.actual)}`)
    case "Transformation":
      return describeIssue(issue.issue, path)
    case "Type":
      return at(`expected ${describeAst(issue.ast)}, got ${showActual(issue.actual)}`)
    case "Forbidden":
      return at("forbidden")
  }
}

/** A one-line detail naming the first offending field: `threadId: expected string, got 5` or `missing field "threadId"`. */
export const formatParamsError = (error: ParseResult.ParseError): string => describeIssue(error.issue, [])
