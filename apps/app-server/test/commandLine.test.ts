import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { CliCommands, CommandLine } from "../src/index.js"
import { flags, parseArgs, usage } from "../src/internal/args.js"

const options: ReadonlyArray<CommandLine.Option> = [
  { name: "--config", value: "PATH", description: "c" },
  { name: "--arg", value: "NAME=VALUE", repeatable: true, description: "a" },
  { name: "--json", description: "j" }
]

describe("the command-line parser of both programs", () => {
  it("reads --name value, --name=value (an empty value too), switches, repeatable options and --", () => {
    const parsed = CommandLine.parse(options, [
      "a",
      "--config=x.toml",
      "--arg",
      "k=v",
      "--json",
      "--arg=n=1",
      "--config",
      "y.toml",
      "--",
      "--json"
    ])
    assert.deepStrictEqual(CommandLine.last(parsed, "--config"), "y.toml")
    assert.deepStrictEqual(CommandLine.all(parsed, "--arg"), ["k=v", "n=1"])
    assert.isTrue(parsed.switches.has("--json"))
    assert.deepStrictEqual(parsed.positional, ["a", "--json"])
    assert.strictEqual(CommandLine.last(CommandLine.parse(options, ["--config="]), "--config"), "")
    // a short form is its option; other single-dash arguments stay positional
    const help: ReadonlyArray<CommandLine.Option> = [{ name: "--help", alias: "-h", description: "h" }]
    assert.isTrue(CommandLine.parse(help, ["-h"]).switches.has("--help"))
    assert.deepStrictEqual(CommandLine.parse(help, ["-x", "-"]).positional, ["-x", "-"])
  })

  it("refuses what it does not know, a missing value and a value given to a switch, naming the argument", () => {
    assert.throws(() => CommandLine.parse(options, ["--nope"]), "unknown argument: --nope")
    assert.throws(() => CommandLine.parse(options, ["--nope=1"]), "unknown argument: --nope")
    assert.throws(
      () => CommandLine.parse(options, ["--nope"], { unknownOption: (arg) => `unknown option for x: ${arg}` }),
      "unknown option for x: --nope"
    )
    assert.throws(() => CommandLine.parse(options, ["--config"]), "--config requires a value")
    assert.throws(() => CommandLine.parse(options, ["--json=1"]), "--json takes no value")
    assert.throws(() => CommandLine.parse(options, ["x"], { positional: false }), "unknown argument: x")
  })

  it("--name=value and --name value read the same, whatever the value", () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom("--config", "--arg"), (value, name) => {
        const joined = CommandLine.parse(options, [`${name}=${value}`])
        const separate = CommandLine.parse(options, [name, value])
        assert.deepStrictEqual(joined.values, separate.values)
        assert.deepStrictEqual(joined.positional, [])
      })
    )
  })

  it("the app-server and the CLI take --flag=value alike (one parser)", () => {
    assert.strictEqual(parseArgs(["--config=cfg.toml"], {}, "/w").configPath, "/w/cfg.toml")
    const command = CliCommands.parseCommand(["list", "--config=cfg.toml", "--server=s"])
    assert.deepStrictEqual(command, {
      _tag: "list",
      configPath: "cfg.toml",
      dataDir: undefined,
      json: false,
      profile: undefined,
      extendedOnly: false,
      server: "s"
    })
  })

  it("the app-server's usage names every flag it parses", () => {
    for (const flag of flags) assert.include(usage, flag.name)
    for (const option of CliCommands.allOptions) assert.include(CliCommands.usage, option.name)
  })
})

describe("the CLI's commands", () => {
  const parse = CliCommands.parseCommand

  it("call passes a --arg VALUE that parses as JSON as that JSON, else as the text; --args-json first", () => {
    const command = parse([
      "call",
      "s",
      "t",
      "--args-json",
      '{"a":1,"keep":true}',
      "--arg",
      "a=2",
      "--arg",
      "s=hello",
      "--arg",
      'o={"x":[1]}',
      "--arg",
      "e="
    ])
    assert.deepStrictEqual(command._tag === "call" ? command.arguments : undefined, {
      a: 2,
      keep: true,
      s: "hello",
      o: { x: [1] },
      e: ""
    })
    assert.throws(() => parse(["call", "s", "t", "--arg", "novalue"]), '--arg: expected NAME=VALUE, got "novalue"')
    assert.throws(() => parse(["call", "s", "t", "--args-json", "1"]), '--args-json: expected a JSON object, got "1"')
  })

  it("what only the extended profile has runs on it, and is refused under --profile codex", () => {
    const read = parse(["read", "s", "--template", "x://{id}", "--arg", "id=1"])
    assert.deepStrictEqual(read, {
      _tag: "read",
      configPath: undefined,
      dataDir: undefined,
      json: false,
      profile: undefined,
      extendedOnly: true,
      server: "s",
      target: { _tag: "template", uriTemplate: "x://{id}", values: { id: "1" } }
    })
    assert.isFalse((parse(["read", "s", "x://a"]) as Extract<CliCommands.Command, { _tag: "read" }>).extendedOnly)
    assert.throws(
      () => parse(["complete", "s", "--template", "t", "--var", "v", "--value=", "--profile", "codex"]),
      "complete is only in the extended profile; it cannot be used with --profile codex"
    )
    assert.throws(() => parse(["read", "s", "x://a", "--length", "-1"]), /--length: expected a whole number/)
    assert.throws(() => parse(["tools", "--profile", "fast"]), '--profile: expected codex or extended, got "fast"')
    assert.throws(() => parse(["read", "s", "x://a", "--arg", "a=1"]), "read --arg needs --template")
    assert.throws(() => parse(["complete", "s", "--template", "t", "--var", "v"]), /complete requires --value/)
  })
})
