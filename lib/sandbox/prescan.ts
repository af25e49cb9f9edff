// Static pre-scan of Python code before it reaches a reviewer (SPEC "Sandbox").
//
// A real parser (tree-sitter's Python grammar, WebAssembly build) walks the syntax tree. "Blocked"
// findings mean the code goes back to the agent and never reaches a human; other findings become
// risk tags on their lines. The scan is policy, not the security boundary: the OS sandbox is. So
// the rules lean conservative (a false block costs the agent one revision; a miss is caught by the
// sandbox anyway).
import { createRequire } from "node:module";
import path from "node:path";
import * as TreeSitterModule from "@vscode/tree-sitter-wasm";
import type { Language, Node, Parser } from "@vscode/tree-sitter-wasm";
import { readEnv } from "@/lib/env";
import { countsByKind, listed } from "@/lib/risk/listed";

export type ScanSeverity = "low" | "medium" | "high" | "critical";

export type ScanFinding = {
  rule: string;
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units (how JavaScript indexes the line). */
  column: number;
  message: string;
  severity: ScanSeverity;
};

export type ScanResult = {
  /** The parser's message with its position, or null when the code parses. */
  parseError: string | null;
  /** Code with any blocked finding must never reach a human. */
  blocked: ScanFinding[];
  /** Non-blocking findings, shown to reviewers as risk tags on the line. */
  findings: ScanFinding[];
};

export type ScanOptions = {
  /** Top-level module names whose import is blocked. Defaults to DEFAULT_BANNED_MODULES. */
  bannedModules?: string[];
};

export const DEFAULT_BANNED_MODULES: readonly string[] = Object.freeze([
  "os",
  "subprocess",
  "shutil",
  "socket",
  "sys",
]);

// Lower-level modules that expose the same powers as a banned one under another name
// (`posix.system`, `_socket.socket`...). Blocked whenever the module they stand in for is banned.
const BANNED_EQUIVALENTS: Record<string, readonly string[]> = {
  os: ["posix", "nt", "posixpath", "ntpath", "pty", "_posixsubprocess"],
  subprocess: ["_posixsubprocess", "pty"],
  socket: ["_socket"],
  shutil: [],
  sys: [],
};

const PACKAGE_INSTALLERS = new Set(["pip", "pip3", "ensurepip", "setuptools", "distutils", "pkg_resources", "conda", "mamba"]);
const DYNAMIC_IMPORT_MODULES = new Set(["importlib", "imp", "zipimport", "runpy", "pkgutil"]);
const BUILTINS_MODULES = new Set(["builtins", "__builtin__"]);
const DYNAMIC_CODE_NAMES = new Set(["eval", "exec", "compile"]);
// Modules that are exec under another name (`code.InteractiveInterpreter().runsource(...)`,
// `codeop.compile_command`), with no use in analysis: blocked at their import. (Only there: `code`
// is an everyday variable name.)
const DYNAMIC_CODE_MODULES = new Set(["code", "codeop"]);
// Attributes (or string keys) whose only everyday use is reaching interpreter internals: a
// function's or frame's globals (and from there `__builtins__`), every class alive, the loader.
const ESCAPE_ATTRIBUTES = new Set([
  "__builtins__",
  "__import__",
  "__subclasses__",
  "__globals__",
  "__loader__",
  "__spec__",
  "__code__",
  "__self__",
  "f_globals",
  "f_builtins",
  "f_locals",
  "f_back",
  "tb_frame",
  "gi_frame",
  "cr_frame",
  "ag_frame",
]);
// asyncio starts processes itself (`asyncio.create_subprocess_exec`, `loop.subprocess_shell`):
// the power of `subprocess` without importing it, so blocked wherever `subprocess` is banned.
const PROCESS_SPAWN_NAMES = new Set(["create_subprocess_exec", "create_subprocess_shell", "subprocess_exec", "subprocess_shell"]);
// Modules whose attribute names (`x._ctypes`, numpy's `array.ctypes`) lead to native code: numpy
// arrays have a legitimate `.ctypes`, so this is a high tag like `import ctypes`, not a block.
const NATIVE_CODE_MODULES = new Set(["ctypes", "cffi", "mmap"]);

type ModuleRisk = { rule: string; severity: ScanSeverity; message: string };
const RISKY_MODULES: Record<string, ModuleRisk> = {};
for (const name of ["urllib", "urllib3", "http", "requests", "httpx", "aiohttp", "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "xmlrpc", "ssl", "websocket", "websockets", "paramiko"]) {
  RISKY_MODULES[name] = { rule: "network-module", severity: "medium", message: `imports network module "${name}" (the sandbox has no network)` };
}
for (const name of ["ctypes", "cffi", "_ctypes", "mmap"]) {
  RISKY_MODULES[name] = { rule: "native-code", severity: "high", message: `imports "${name}", which reaches native memory and C functions` };
}
for (const name of ["pickle", "_pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle", "joblib"]) {
  RISKY_MODULES[name] = { rule: "unsafe-deserialization", severity: "medium", message: `imports "${name}", which can execute code while loading data` };
}
for (const name of ["multiprocessing", "threading", "_thread", "concurrent", "asyncio"]) {
  RISKY_MODULES[name] = { rule: "concurrency", severity: "low", message: `imports "${name}" (parallel work competes for the sandbox's CPU and pids limits)` };
}
// Each runs code handed to it as a string (`timeit.timeit("...")`, `pdb.run`, `cProfile.run`, doctests):
// timing and profiling are real analysis uses, so a high tag for the reviewer rather than a block.
for (const name of ["timeit", "pdb", "bdb", "cProfile", "profile", "trace", "doctest"]) {
  RISKY_MODULES[name] = { rule: "runs-code-string", severity: "high", message: `imports "${name}", which can run code given to it as a string` };
}
for (const name of ["signal", "resource", "gc", "inspect", "tempfile", "glob", "pathlib", "io", "fcntl"]) {
  RISKY_MODULES[name] = { rule: "system-module", severity: "low", message: `imports "${name}" (touches the process or filesystem)` };
}

const INSTALL_COMMAND = /\b(?:pip3?|conda|mamba|easy_install|apt(?:-get)?|pipx|uv)\s+(?:install|add)\b|\b-m\s+(?:pip|ensurepip)\b/i;
const LARGE_NUMBER = 10_000_000;

// ---------------------------------------------------------------------------------------------
// Parser singleton: the WebAssembly runtime and grammar are loaded once per process (~20-45 ms).

type TreeSitterApi = typeof TreeSitterModule;
let parserPromise: Promise<Parser> | null = null;

function wasmPath(file: string): string {
  const dir = readEnv("TREE_SITTER_WASM_DIR");
  if (dir) return path.join(dir, file);
  // Resolve from the working directory rather than this file: under a bundler (Next.js) this
  // module's own location is not a real path, while the package is in the app's node_modules.
  const requireFromCwd = createRequire(path.join(process.cwd(), "noop.js"));
  return path.join(path.dirname(requireFromCwd.resolve("@vscode/tree-sitter-wasm/package.json")), "wasm", file);
}

function getParser(): Promise<Parser> {
  if (!parserPromise) {
    parserPromise = (async () => {
      // The package is UMD: under Node's ESM loader only `default` carries the classes.
      const api = ((TreeSitterModule as { default?: TreeSitterApi }).default ?? TreeSitterModule) as TreeSitterApi;
      await api.Parser.init({ locateFile: () => wasmPath("tree-sitter.wasm") });
      const python: Language = await api.Language.load(wasmPath("tree-sitter-python.wasm"));
      const parser = new api.Parser();
      parser.setLanguage(python);
      return parser;
    })();
    parserPromise.catch(() => {
      parserPromise = null; // let a later call retry instead of caching the failure
    });
  }
  return parserPromise;
}

// ---------------------------------------------------------------------------------------------

export async function scanPython(code: string, opts: ScanOptions = {}): Promise<ScanResult> {
  const parser = await getParser();
  const banned = new Set<string>();
  for (const name of opts.bannedModules ?? DEFAULT_BANNED_MODULES) {
    banned.add(name);
    for (const eq of BANNED_EQUIVALENTS[name] ?? []) banned.add(eq);
  }

  const lines = code.split("\n");
  const blocked: ScanFinding[] = [];
  const findings: ScanFinding[] = [];

  let tree = parser.parse(code);
  if (!tree) throw new Error("tree-sitter returned no tree");

  // Notebook lines (`!pip install x`, `%pip install x`, `!rm -rf /`) are not Python; they are
  // syntax errors to the parser. Report them as what they are, then parse the rest without them.
  if (tree.rootNode.hasError) {
    const magicRows = findMagicLines(tree.rootNode, lines);
    if (magicRows.length > 0) {
      for (const row of magicRows) {
        const text = lines[row];
        const column = text.length - text.trimStart().length;
        const command = text.trim();
        const install = INSTALL_COMMAND.test(command) || /^[!%]\s*(?:pip|conda|mamba)\b/.test(command);
        blocked.push({
          rule: install ? "package-install" : "shell-escape",
          line: row + 1,
          column: column + 1,
          message: install
            ? `notebook package install "${clip(command)}" (nothing may be installed at run time)`
            : `notebook shell/magic command "${clip(command)}" is not Python and cannot run`,
          severity: "critical",
        });
      }
      const magic = new Set(magicRows);
      const masked = lines.map((line, row) => (magic.has(row) ? " ".repeat(line.length) : line)).join("\n");
      tree.delete();
      tree = parser.parse(masked);
      if (!tree) throw new Error("tree-sitter returned no tree");
    }
  }

  try {
    const parseError = tree.rootNode.hasError ? describeParseError(tree.rootNode) : findIndentError(tree.rootNode);
    const ctx: ScanContext = { banned, blocked, findings, lines, importedBanned: new Set(), bareNames: [] };
    walk(tree.rootNode, (node, parent, field) => visit(node, parent, field, ctx));
    // `os.listdir()` after a blocked `import os` needs no second reason; a bare `os` with no such
    // import came from a star import (`from pandas.io.common import *`) or shadows the module.
    for (const { module, finding } of ctx.bareNames) if (!ctx.importedBanned.has(module)) blocked.push(finding);
    return { parseError, blocked: listedFindings(dedupe(blocked)), findings: listedFindings(dedupe(findings)) };
  } finally {
    tree.delete();
  }
}

type ScanContext = {
  banned: Set<string>;
  blocked: ScanFinding[];
  findings: ScanFinding[];
  lines: string[];
  /** Banned modules some import statement names (already blocked there). */
  importedBanned: Set<string>;
  /** Bare references to a banned module's name, reported unless that module's import was. */
  bareNames: { module: string; finding: ScanFinding }[];
};

function visit(node: Node, parent: Node | null, field: string | null, ctx: ScanContext): void {
  switch (node.type) {
    case "import_statement":
      for (const name of node.childrenForFieldName("name")) {
        if (!name) continue;
        const dotted = name.type === "aliased_import" ? name.childForFieldName("name") : name;
        if (dotted) checkModule(dotted, ctx);
      }
      return;
    case "import_from_statement": {
      const moduleNode = node.childForFieldName("module_name");
      const moduleBlocked = moduleNode !== null && moduleNode.type !== "relative_import" && checkModule(moduleNode, ctx);
      if (moduleBlocked) return; // `from socket import socket` needs one reason, not two
      // What a from-import takes is an attribute of its module: `from tempfile import _os` is
      // `tempfile._os`. (`from foo import eval` style re-exports are caught where the name is used.)
      for (const name of node.childrenForFieldName("name")) {
        if (!name) continue;
        const imported = name.type === "aliased_import" ? name.childForFieldName("name") : name;
        if (imported) for (const part of dottedParts(imported)) checkReachedName(part, imported, ctx, "attribute");
      }
      return;
    }
    case "identifier":
      if (isNameReference(parent, field)) checkName(node, ctx);
      return;
    case "attribute": {
      const attr = node.childForFieldName("attribute");
      if (!attr) return;
      const name = nameOf(attr);
      if (ESCAPE_ATTRIBUTES.has(name)) {
        block(ctx, "sandbox-escape", attr, `access to "${name}" reaches interpreter internals`);
      } else if (name === "__dict__") {
        // `obj.__dict__` has everyday uses; a literal key into it is checked like an attribute (below).
        note(ctx, "namespace-access", "medium", attr, "reads __dict__, every name an object or module holds");
      } else {
        checkReachedName(name, attr, ctx, "attribute");
      }
      if ((name === "write_text" || name === "write_bytes") && parent?.type === "call") {
        note(ctx, "file-write", "medium", attr, `writes a file with ${name}()`);
      }
      return;
    }
    case "subscript": {
      // `tempfile.__dict__["_os"]`, `vars(pathlib)["os"]`: an attribute by another spelling.
      const value = node.childForFieldName("value");
      if (!value || !isNamespace(value)) return;
      for (const key of node.childrenForFieldName("subscript")) {
        const literal = key ? stringLiteral(key) : null;
        if (key && literal !== null) checkReachedName(literal, key, ctx, "attribute");
      }
      return;
    }
    case "string":
      checkString(node, ctx);
      return;
    case "exec_statement": // Python 2 syntax the grammar still accepts: `exec "code"`
      block(ctx, "dynamic-code", node, "uses exec, which runs code built at run time");
      return;
    case "call":
      checkCall(node, ctx);
      return;
    case "while_statement":
      checkWhile(node, ctx);
      return;
    case "binary_operator":
      checkLargeAllocation(node, ctx);
      return;
    default:
      return;
  }
}

/** Blocks or tags an imported module by its dotted name; true when it blocked. */
function checkModule(node: Node, ctx: ScanContext): boolean {
  const parts = dottedParts(node);
  const dottedName = parts.join(".");
  const top = parts[0] ?? "";
  const blockedBefore = ctx.blocked.length;
  if (ctx.banned.has(top)) {
    ctx.importedBanned.add(top);
    block(ctx, "banned-import", node, `imports banned module "${dottedName}"`);
  } else if (PACKAGE_INSTALLERS.has(top)) {
    block(ctx, "package-install", node, `imports package installer "${dottedName}" (nothing may be installed at run time)`);
  } else if (DYNAMIC_IMPORT_MODULES.has(top)) {
    block(ctx, "dynamic-import", node, `imports "${dottedName}", which loads modules dynamically`);
  } else if (BUILTINS_MODULES.has(top)) {
    block(ctx, "builtins-access", node, `imports "${dottedName}", which exposes every builtin (import, eval, open)`);
  } else if (DYNAMIC_CODE_MODULES.has(top)) {
    block(ctx, "dynamic-code", node, `imports "${dottedName}", which runs code built at run time as exec does`);
  } else {
    // Each later part is an attribute of the one before: `import asyncio.subprocess`.
    for (const part of parts.slice(1)) checkReachedName(part, node, ctx, "attribute");
    const risk = RISKY_MODULES[top];
    if (risk) note(ctx, risk.rule, risk.severity, node, risk.message);
  }
  return ctx.blocked.length > blockedBefore;
}

// Whether an identifier (in `field` of `parent`) is a name being *used*, not an attribute name,
// keyword name or definition.
function isNameReference(parent: Node | null, field: string | null): boolean {
  if (!parent) return true;
  switch (parent.type) {
    case "attribute":
      return field === "object";
    case "keyword_argument":
      return field === "value";
    case "dotted_name":
    case "aliased_import":
    case "import_statement":
    case "import_from_statement":
    case "parameters":
    case "lambda_parameters":
    case "default_parameter":
    case "typed_parameter":
    case "typed_default_parameter":
      return (parent.type === "default_parameter" || parent.type === "typed_default_parameter") && field === "value";
    case "function_definition":
    case "class_definition":
      return field !== "name";
    default:
      return true;
  }
}

function checkName(node: Node, ctx: ScanContext): void {
  const name = nameOf(node);
  if (name === "__import__") {
    block(ctx, "dynamic-import", node, "uses __import__(), which imports modules by computed name");
  } else if (DYNAMIC_CODE_NAMES.has(name)) {
    block(ctx, "dynamic-code", node, `uses ${name}(), which runs code built at run time`);
  } else if (name === "__builtins__" || BUILTINS_MODULES.has(name)) {
    block(ctx, "builtins-access", node, `uses "${name}", which exposes every builtin (import, eval, open)`);
  } else if (DYNAMIC_IMPORT_MODULES.has(name)) {
    block(ctx, "dynamic-import", node, `uses "${name}", which loads modules dynamically`);
  } else {
    checkReachedName(name, node, ctx, "name");
  }
}

const REACHED_DYNAMIC_IMPORT = new Set(["importlib", "zipimport", "runpy", "pkgutil"]);

/**
 * A name that reaches a module the scan keeps out by another road: an attribute of some other
 * module (`tempfile._os`, `pathlib.os`, `traceback.sys`: stdlib and pandas modules import os and
 * sys under their own names), a from-import of one (`from tempfile import _os`), a literal key into
 * a namespace (`getattr(random, "_os")`, `m.__dict__["os"]`), or a bare name a star import brought.
 * Blocked, not tagged, where it reaches a banned module, importlib or builtins: that is the
 * banned import itself, and analysis code has no use for it (a data column of that name reads
 * `df["os"]`). Native code is a high tag, as `import ctypes` is: numpy arrays have `.ctypes`.
 */
function checkReachedName(name: string, node: Node, ctx: ScanContext, how: "attribute" | "name"): void {
  const bare = name.replace(/^_+/, ""); // `_os`, `__os`: the private aliases modules import under
  const reached = ctx.banned.has(name) ? name : ctx.banned.has(bare) ? bare : null;
  if (reached !== null) {
    if (how === "name") {
      const message = `uses the name "${name}" of banned module "${reached}" (a star import can bring it in); rename the variable`;
      ctx.bareNames.push({ module: reached, finding: finding(ctx, "banned-name", "critical", node, message) });
    } else {
      block(ctx, "module-via-attribute", node, `reaches banned module "${reached}" through another module's attribute "${name}" (for a data column of that name use df["${name}"])`);
    }
  } else if (PROCESS_SPAWN_NAMES.has(name) && ctx.banned.has("subprocess")) {
    block(ctx, "process-spawn", node, `uses ${name}(), which starts a process as the banned "subprocess" module does`);
  } else if (how === "name") {
    return; // the names below are caught as bare names by checkName, or tagged at their import
  } else if (REACHED_DYNAMIC_IMPORT.has(bare) || name === "_imp") {
    block(ctx, "dynamic-import", node, `reaches "${bare}" through another reached's attribute "${name}", which loads modules dynamically`);
  } else if (bare === "builtins" || name === "__builtin__") {
    block(ctx, "builtins-access", node, `reaches "builtins" through attribute "${name}", which exposes every builtin (import, eval, open)`);
  } else if (NATIVE_CODE_MODULES.has(bare)) {
    note(ctx, "native-code", "high", node, `reaches "${bare}" through attribute "${name}", which reaches native memory and C functions`);
  }
}

function checkString(node: Node, ctx: ScanContext): void {
  const content = node.namedChildren
    .filter((c): c is Node => c !== null && c.type === "string_content")
    .map((c) => c.text)
    .join("");
  if (ESCAPE_ATTRIBUTES.has(content) || BUILTINS_MODULES.has(content)) {
    block(ctx, "builtins-access", node, `refers to "${content}" by name, a way to reach hidden builtins`);
  } else if (content === "__import__" || DYNAMIC_CODE_NAMES.has(content)) {
    block(ctx, "dynamic-code", node, `refers to "${content}" by name, a way to reach eval/exec/import`);
  } else if (INSTALL_COMMAND.test(content)) {
    block(ctx, "package-install", node, `contains a package install command "${clip(content)}"`);
  }
}

function checkCall(node: Node, ctx: ScanContext): void {
  const fn = node.childForFieldName("function");
  const args = node.childForFieldName("arguments");
  if (!fn || !args || args.type !== "argument_list") return;
  const positional = args.namedChildren.filter((a): a is Node => a !== null && a.type !== "keyword_argument" && a.type !== "comment");
  if (fn.type === "attribute") {
    checkMethodCall(fn, positional, ctx);
    return;
  }
  if (fn.type !== "identifier") return;
  const keyword = (name: string): Node | null => {
    for (const a of args.namedChildren) {
      const key = a?.type === "keyword_argument" ? a.childForFieldName("name") : null;
      if (a && key && nameOf(key) === name) return a.childForFieldName("value");
    }
    return null;
  };

  const fnName = nameOf(fn);
  switch (fnName) {
    case "open": {
      const mode = positional[1] ?? keyword("mode");
      if (!mode) return;
      const literal = stringLiteral(mode);
      if (literal === null) {
        note(ctx, "file-open-dynamic", "low", fn, "opens a file with a mode computed at run time");
      } else if (/[wax+]/.test(literal)) {
        const target = positional[0] ? stringLiteral(positional[0]) : null;
        const where = target !== null ? ` "${clip(target)}"` : "";
        note(ctx, "file-write", "medium", fn, `opens a file${where} for writing (mode "${literal}")`);
      }
      return;
    }
    case "getattr":
    case "setattr":
    case "delattr": {
      const attrName = positional[1];
      if (!attrName) return;
      const literal = stringLiteral(attrName);
      if (literal === null) {
        note(ctx, "dynamic-attribute", "medium", fn, `${fnName}() with an attribute name computed at run time`);
      } else {
        checkReachedName(literal, attrName, ctx, "attribute");
      }
      return;
    }
    case "globals":
    case "locals":
    case "vars":
      note(ctx, "namespace-access", "medium", fn, `${fnName}() exposes the module's namespace`);
      return;
    case "range": {
      for (const arg of positional) {
        const value = constantInt(arg);
        if (value !== null && Math.abs(value) >= LARGE_NUMBER) {
          note(ctx, "large-range", "medium", node, `range over ${formatBig(value)} items may exhaust the time limit`);
          return;
        }
      }
      return;
    }
    case "input":
      note(ctx, "stdin-read", "low", fn, "reads from stdin, which is empty in the sandbox");
      return;
    default:
      return;
  }
}

/** `m.__dict__.get("_os")`, `object.__getattribute__(m, "_os")`: attribute access by a literal name. */
function checkMethodCall(fn: Node, positional: Node[], ctx: ScanContext): void {
  const attr = fn.childForFieldName("attribute");
  const object = fn.childForFieldName("object");
  if (!attr || !object) return;
  const method = nameOf(attr);
  const byName = method === "__getattribute__" ? positional : (method === "get" || method === "pop" || method === "setdefault") && isNamespace(object) ? positional.slice(0, 1) : [];
  for (const arg of byName) {
    const literal = stringLiteral(arg);
    if (literal !== null) checkReachedName(literal, arg, ctx, "attribute");
  }
}

/** `x.__dict__`, `vars(x)`, `globals()`, `locals()`: a mapping whose keys are attribute names. */
function isNamespace(node: Node): boolean {
  if (node.type === "attribute") {
    const attr = node.childForFieldName("attribute");
    return attr !== null && nameOf(attr) === "__dict__";
  }
  if (node.type !== "call") return false;
  const fn = node.childForFieldName("function");
  return fn?.type === "identifier" && ["vars", "globals", "locals"].includes(nameOf(fn));
}

function checkWhile(node: Node, ctx: ScanContext): void {
  const condition = node.childForFieldName("condition");
  if (!condition) return;
  const alwaysTrue = condition.type === "true" || (constantInt(condition) ?? 0) !== 0;
  if (!alwaysTrue) return;
  const body = node.childForFieldName("body");
  const hasExit = body ? containsLoopExit(body) : false;
  note(
    ctx,
    "unbounded-loop",
    hasExit ? "low" : "medium",
    node,
    hasExit ? "`while True` loop; ends only through break/return" : "`while True` loop with no break or return: runs until the time limit",
  );
}

function containsLoopExit(body: Node): boolean {
  let found = false;
  walk(body, (n) => {
    if (found) return false;
    if (n.type === "break_statement" || n.type === "return_statement" || n.type === "raise_statement") found = true;
    // Breaks inside nested loops or functions do not leave this loop.
    return !(n.type === "for_statement" || n.type === "while_statement" || n.type === "function_definition");
  });
  return found;
}

function checkLargeAllocation(node: Node, ctx: ScanContext): void {
  const op = node.childForFieldName("operator")?.type;
  if (op !== "*") return;
  const left = node.childForFieldName("left");
  const right = node.childForFieldName("right");
  if (!left || !right) return;
  // Only sequences repeated a huge number of times: `[0] * 10**9`, `"x" * 10**9`.
  const sequenceTypes = new Set(["list", "string", "tuple", "concatenated_string"]);
  const pairs: [Node, Node][] = [[left, right], [right, left]];
  for (const [seq, count] of pairs) {
    if (!sequenceTypes.has(seq.type)) continue;
    const n = constantInt(count);
    if (n !== null && n >= LARGE_NUMBER) {
      note(ctx, "large-allocation", "medium", node, `builds a sequence of ${formatBig(n)} items; may exceed the memory limit`);
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

// Constant folding looks this many levels deep, no further: real limits are shallow (`10 ** 9`,
// `50_000_000`), and a bound keeps each call's cost constant however deep the untrusted input nests
// (`1*1*1*…` would otherwise be re-folded from every operator: quadratic, and a stack overflow).
const MAX_CONSTANT_DEPTH = 32;

/** Folds integer literals and `+ - * **` between them; null when not a constant (or nested too deep). */
function constantInt(node: Node, depth = 0): number | null {
  if (depth > MAX_CONSTANT_DEPTH) return null;
  switch (node.type) {
    case "integer": {
      const text = node.text.replace(/_/g, "").toLowerCase();
      if (/[lj]$/.test(text)) return null;
      const value = Number(text.startsWith("0o") ? parseInt(text.slice(2), 8) : text);
      return Number.isFinite(value) ? value : null;
    }
    case "true":
      return 1;
    case "parenthesized_expression": {
      const inner = node.namedChildren[0];
      return inner ? constantInt(inner, depth + 1) : null;
    }
    case "unary_operator": {
      const operand = node.childForFieldName("argument");
      const value = operand ? constantInt(operand, depth + 1) : null;
      if (value === null) return null;
      return node.child(0)?.type === "-" ? -value : value;
    }
    case "binary_operator": {
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      const a = left ? constantInt(left, depth + 1) : null;
      const b = a !== null && right ? constantInt(right, depth + 1) : null;
      if (a === null || b === null) return null;
      switch (node.childForFieldName("operator")?.type) {
        case "+":
          return a + b;
        case "-":
          return a - b;
        case "*":
          return a * b;
        case "**":
          return b >= 0 && b < 400 ? a ** b : null;
        default:
          return null;
      }
    }
    default:
      return null;
  }
}

/**
 * An identifier as Python reads it: the tokenizer folds every identifier to NFKC (PEP 3131), so
 * `ｅｘｅｃ` and `𝐞𝐯𝐚𝐥` are `exec` and `eval`, and `import ｏｓ` imports os. String contents are not
 * folded (`getattr(x, "ｅｘｅｃ")` finds nothing), so only names go through this. The node's text is
 * the source as written (tree-sitter keeps it), so each comparison must fold it first. Linear in the
 * name's length.
 */
function nameOf(node: Node): string {
  return node.text.normalize("NFKC");
}

/** The folded names of a `dotted_name` (`pandas.io.common`), or of a lone identifier. */
function dottedParts(node: Node): string[] {
  if (node.type === "identifier") return [nameOf(node)];
  return node.namedChildren.filter((c): c is Node => c !== null && c.type === "identifier").map(nameOf);
}

/** The value of a plain string literal (no f-string interpolation), else null. */
function stringLiteral(node: Node): string | null {
  if (node.type !== "string") return null;
  if (node.namedChildren.some((c) => c?.type === "interpolation")) return null;
  return node.namedChildren
    .filter((c): c is Node => c !== null && c.type === "string_content")
    .map((c) => c.text)
    .join("");
}

/**
 * Depth-first, in source order, iterative (deeply nested input must not overflow the stack). Each
 * node comes with its parent and the field it fills there: web-tree-sitter's `node.parent` searches
 * down from the root, so asking it for every node costs time quadratic in the nesting depth.
 * Returning false skips the node's children.
 */
function walk(root: Node, fn: (node: Node, parent: Node | null, field: string | null) => boolean | void): void {
  const cursor = root.walk();
  const ancestors: Node[] = [];
  try {
    for (;;) {
      const node = cursor.currentNode;
      const enter = fn(node, ancestors.at(-1) ?? null, cursor.currentFieldName) !== false;
      if (enter && cursor.gotoFirstChild()) {
        ancestors.push(node);
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (ancestors.length === 0 || !cursor.gotoParent()) return;
        ancestors.pop();
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * Rows that are notebook lines (`!cmd`, `%magic`): their first character lies inside a region the
 * parser could not read (an ERROR node) and inside no string. `% 3` continuing an expression in
 * brackets is valid Python, and the same text inside a triple-quoted string is just data.
 */
function findMagicLines(root: Node, lines: string[]): number[] {
  const rows: number[] = [];
  const starts: number[] = []; // the index of each row's first non-blank character, ascending
  let lineStart = 0;
  lines.forEach((line, row) => {
    const trimmed = line.trimStart();
    if (trimmed.startsWith("!") || trimmed.startsWith("%")) {
      rows.push(row);
      starts.push(lineStart + line.length - trimmed.length);
    }
    lineStart += line.length + 1;
  });
  if (rows.length === 0) return [];
  // One pass over the tree, then a sweep: asking for each row's node and its ancestors instead
  // costs rows × depth. web-tree-sitter parses JavaScript strings, so its indexes are UTF-16 like ours.
  const strings: [number, number][] = [];
  const errors: [number, number][] = [];
  walk(root, (n) => {
    if (n.type === "string" || n.type === "string_content") strings.push([n.startIndex, n.endIndex]);
    else if (n.isError) errors.push([n.startIndex, n.endIndex]);
  });
  const inString = covered(starts, strings);
  const inError = covered(starts, errors);
  return rows.filter((_, i) => inError[i] && !inString[i]);
}

/** For each of the ascending `points`, whether some half-open range [start, end) holds it. */
function covered(points: number[], ranges: [number, number][]): boolean[] {
  const firstAtOrAfter = (x: number): number => {
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (points[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const delta = new Array<number>(points.length + 1).fill(0);
  for (const [start, end] of ranges) {
    delta[firstAtOrAfter(start)]++;
    delta[firstAtOrAfter(end)]--;
  }
  let depth = 0;
  return points.map((_, i) => (depth += delta[i]) > 0);
}

/**
 * tree-sitter's indentation scanner accepts an indented statement where Python raises
 * "unexpected indent"; catch it: statements of one block that start their own line must line up.
 */
function findIndentError(root: Node): string | null {
  let error: string | null = null;
  walk(root, (n) => {
    if (error) return false;
    // Blocks sit only under statements, their clauses and definitions: skip expressions, however deep.
    if (n.type !== "module" && n.type !== "block") return /_(?:statement|clause|definition)$/.test(n.type);
    let column: number | null = n.type === "module" ? 0 : null;
    let previousEndRow = -1;
    for (const child of n.namedChildren) {
      if (!child || child.type === "comment") continue;
      const { row, column: col } = child.startPosition;
      if (row !== previousEndRow) {
        if (column === null) column = col;
        else if (col !== column) {
          error = `Syntax error at line ${row + 1}, column ${col + 1}: unexpected indent`;
          return false;
        }
      }
      previousEndRow = child.endPosition.row;
    }
    return true;
  });
  return error;
}

function describeParseError(root: Node): string {
  let first: Node | null = null;
  walk(root, (n) => {
    if (first) return false;
    if (n.isMissing || n.isError) {
      first = n;
      return false;
    }
    return n.hasError;
  });
  const node = first as Node | null;
  if (!node) return "Syntax error";
  const { row, column } = node.startPosition;
  const where = `line ${row + 1}, column ${column + 1}`;
  if (node.isMissing) return `Syntax error at ${where}: missing "${node.type}"`;
  // tree-sitter's ERROR node spans the tokens it had to skip; quote the start of that stretch.
  const snippet = clip(node.text.split("\n")[0].trim(), 30);
  return snippet ? `Syntax error at ${where}: invalid syntax near "${snippet}"` : `Syntax error at ${where}: invalid syntax`;
}

function block(ctx: ScanContext, rule: string, node: Node, message: string): void {
  ctx.blocked.push(finding(ctx, rule, "critical", node, message));
}

function note(ctx: ScanContext, rule: string, severity: ScanSeverity, node: Node, message: string): void {
  ctx.findings.push(finding(ctx, rule, severity, node, message));
}

function finding(ctx: ScanContext, rule: string, severity: ScanSeverity, node: Node, message: string): ScanFinding {
  const { row, column } = node.startPosition;
  return { rule, line: row + 1, column: column + 1, message, severity };
}

function dedupe(list: ScanFinding[]): ScanFinding[] {
  const seen = new Set<string>();
  const out: ScanFinding[] = [];
  for (const f of list) {
    const key = `${f.rule}:${f.line}:${f.column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * Findings, at most MAX_LISTED of them (lib/risk/listed.ts: every rule keeps its most severe) plus
 * one that counts the rest: rule `more-findings`, as severe as the worst of them, on the first of
 * their lines.
 */
function listedFindings(list: ScanFinding[]): ScanFinding[] {
  const { kept, rest, worstOfRest } = listed(list, (f) => f.rule);
  if (rest.length === 0) return kept;
  const first = rest[0];
  const summary: ScanFinding = {
    rule: "more-findings",
    line: first.line,
    column: first.column,
    severity: worstOfRest,
    message:
      `${rest.length.toLocaleString("en")} more findings like those listed, not listed one by one: ` +
      `${countsByKind(rest, (f) => f.rule)}, on lines ${first.line.toLocaleString("en")}–${rest.at(-1)!.line.toLocaleString("en")}`,
  };
  return [...kept, summary].sort((a, b) => a.line - b.line || a.column - b.column);
}

function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function formatBig(n: number): string {
  return n >= 1e6 ? n.toExponential(0).replace("e+", "e") : String(n);
}
