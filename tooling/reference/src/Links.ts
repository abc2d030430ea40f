/**
 * Every relative link of the reference (`docs/`) and of the READMEs must reach a file that exists, and
 * its `#anchor` a heading (or an `<a id>`/`<a name>`) of that file, with the anchors GitHub makes:
 * Markdown parsed as CommonMark (links inside code are no links), headings slugged by `github-slugger`
 * (duplicates get `-1`, `-2`, …).
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import GithubSlugger from "github-slugger"
import MarkdownIt, { type Token } from "markdown-it"

const markdown = new MarkdownIt({ html: true })

/** The Markdown files whose links are checked, relative to the root: `docs/**` and every README. */
export const checkedFiles = (root: string): ReadonlyArray<string> => {
  const docs = NodeFs.readdirSync(NodePath.join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => NodePath.posix.join("docs", file.split(NodePath.sep).join("/")))
  const readmes = ["packages", "apps", "tooling"].flatMap((group) =>
    NodeFs.readdirSync(NodePath.join(root, group))
      .map((name) => `${group}/${name}/README.md`)
      .filter((file) => NodeFs.existsSync(NodePath.join(root, file)))
  )
  return ["README.md", ...docs.sort(), ...readmes]
}

/** The text GitHub renders for a heading's inline content. */
const headingText = (inline: Token): string =>
  (inline.children ?? [])
    .filter((child) => child.type === "text" || child.type === "code_inline")
    .map((child) => child.content)
    .join("")

/** The anchors of a Markdown text: its headings, slugged as GitHub does, and `<a id|name="…">`. */
export const anchorsOf = (text: string): ReadonlySet<string> => {
  const slugger = new GithubSlugger()
  const anchors = new Set<string>()
  const tokens = markdown.parse(text, {})
  tokens.forEach((token, i) => {
    if (token.type === "heading_open") anchors.add(slugger.slug(headingText(tokens[i + 1]!)))
    if (token.type === "html_block" || token.type === "inline") {
      const html =
        token.type === "inline"
          ? (token.children ?? [])
              .filter((c) => c.type === "html_inline")
              .map((c) => c.content)
              .join("")
          : token.content
      for (const match of html.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!)
    }
  })
  return anchors
}

/** Every link and image target of a Markdown text, in order. */
export const linksOf = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  const visit = (tokens: ReadonlyArray<Token>) => {
    for (const token of tokens) {
      if (token.type === "link_open") out.push(String(token.attrGet("href") ?? ""))
      if (token.type === "image") out.push(String(token.attrGet("src") ?? ""))
      if (token.children !== null) visit(token.children)
    }
  }
  visit(markdown.parse(text, {}))
  return out
}

/** A link that does not reach its target: where it is, the link, and why. */
export interface BrokenLink {
  readonly file: string
  readonly link: string
  readonly problem: string
}

const isExternal = (link: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith("//")

/** The broken relative links of the checked files. */
export const brokenLinks = (
  root: string,
  files: ReadonlyArray<string> = checkedFiles(root)
): ReadonlyArray<BrokenLink> => {
  const anchorCache = new Map<string, ReadonlySet<string>>()
  const anchors = (file: string) => {
    let found = anchorCache.get(file)
    if (found === undefined) {
      found = anchorsOf(NodeFs.readFileSync(file, "utf8"))
      anchorCache.set(file, found)
    }
    return found
  }
  const broken: Array<BrokenLink> = []
  for (const file of files) {
    const absolute = NodePath.join(root, file)
    for (const link of linksOf(NodeFs.readFileSync(absolute, "utf8"))) {
      if (link === "" || isExternal(link)) continue
      const hash = link.indexOf("#")
      const path = decodeURIComponent(hash < 0 ? link : link.slice(0, hash))
      const anchor = hash < 0 ? undefined : decodeURIComponent(link.slice(hash + 1))
      const target = path === "" ? absolute : NodePath.resolve(NodePath.dirname(absolute), path)
      if (!NodeFs.existsSync(target)) {
        broken.push({ file, link, problem: `no file ${NodePath.relative(root, target)}` })
        continue
      }
      if (anchor === undefined || anchor === "") continue
      if (!target.endsWith(".md")) {
        broken.push({ file, link, problem: "an anchor into a file that is not Markdown" })
      } else if (!anchors(target).has(anchor)) {
        broken.push({ file, link, problem: `no heading #${anchor} in ${NodePath.relative(root, target)}` })
      }
    }
  }
  return broken
}
