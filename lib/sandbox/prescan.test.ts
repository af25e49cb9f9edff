import { describe, expect, it } from "vitest";
import { DEFAULT_BANNED_MODULES, scanPython } from "./prescan";

async function blockedRules(code: string, opts?: { bannedModules?: string[] }): Promise<string[]> {
  const r = await scanPython(code, opts);
  return r.blocked.map((f) => f.rule);
}

describe("scanPython: blocked code", () => {
  it("exports the default banned modules", () => {
    expect([...DEFAULT_BANNED_MODULES].sort()).toEqual(["os", "shutil", "socket", "subprocess", "sys"]);
  });

  it.each([
    ["import os", 1, 8],
    ["import os as o", 1, 8],
    ["import os.path", 1, 8],
    ["from os import path", 1, 6],
    ["from os.path import join", 1, 6],
    ["from os import *", 1, 6],
    ["import json, subprocess", 1, 14],
    ["import shutil", 1, 8],
    ["import socket as s", 1, 8],
    ["import sys", 1, 8],
    ["from sys import argv", 1, 6],
    ["x = 1\nif x:\n    import subprocess", 3, 12],
    ["def f():\n    from socket import socket\n", 2, 10],
    ["import posix", 1, 8], // os under another name
    ["import _socket", 1, 8],
  ])("blocks a banned import: %j", async (code, line, column) => {
    const r = await scanPython(code);
    expect(r.parseError).toBeNull();
    expect(r.blocked).toEqual([expect.objectContaining({ rule: "banned-import", line, column, severity: "critical" })]);
  });

  it("takes a configured banned list", async () => {
    expect(await blockedRules("import os", { bannedModules: ["requests"] })).toEqual([]);
    expect(await blockedRules("import requests.adapters", { bannedModules: ["requests"] })).toEqual(["banned-import"]);
  });

  it.each([
    ['__import__("os")'],
    ['__import__("o" + "s")'],
    ['m = __import__\nm("os")'],
    ["import importlib"],
    ['import importlib.util'],
    ['from importlib import import_module\nimport_module("os")'],
    ['importlib.import_module("os")'],
  ])("blocks dynamic imports: %j", async (code) => {
    expect(await blockedRules(code)).toContain("dynamic-import");
  });

  it.each([
    ['eval("1+1")'],
    ['exec("print(1)")'],
    ['compile("x", "f", "exec")'],
    ["e = eval\ne('1')"],
    ['exec "print 1"'], // Python 2 statement form, still parsed
  ])("blocks eval/exec/compile: %j", async (code) => {
    expect(await blockedRules(code)).toContain("dynamic-code");
  });

  it("does not confuse methods with the eval/compile builtins", async () => {
    const r = await scanPython('import re\nimport pandas as pd\np = re.compile("a+")\ndf = pd.DataFrame({"a": [1]})\ndf.eval("a * 2")\n');
    expect(r.blocked).toEqual([]);
  });

  it.each([
    ["getattr(__builtins__, 'open')"],
    ["globals()['__builtins__']"],
    ["import builtins"],
    ["from builtins import open"],
    ["b = builtins.__dict__"],
    ["().__class__.__bases__[0].__subclasses__()"],
    ["print.__self__"],
    ["getattr(x, '__globals__')"],
  ])("blocks access to builtins and interpreter internals: %j", async (code) => {
    const rules = await blockedRules(code);
    expect(rules.some((r) => r === "builtins-access" || r === "sandbox-escape")).toBe(true);
  });

  it.each([
    ["!pip install requests", 1],
    ["import json\n!pip3 install pandas==2.0\nprint(json.dumps({}))", 2],
    ["%pip install numpy", 1],
    ["  !conda install scipy", 1],
    ["import pip", 1],
    ["from pip._internal import main", 1],
    ["import ensurepip", 1],
    ["cmd = 'pip install requests'", 1],
    ["args = ['python', '-m', 'pip', 'install', 'x']\ncmd = 'python -m pip install x'", 2],
  ])("blocks package installs: %j", async (code, line) => {
    const r = await scanPython(code);
    expect(r.parseError).toBeNull(); // a notebook `!pip` line is a blocked install, not a syntax error
    expect(r.blocked).toEqual(expect.arrayContaining([expect.objectContaining({ rule: "package-install", line })]));
  });

  it("blocks other notebook shell escapes", async () => {
    const r = await scanPython("!rm -rf /\nprint(1)");
    expect(r.parseError).toBeNull();
    expect(r.blocked).toEqual([expect.objectContaining({ rule: "shell-escape", line: 1, column: 1 })]);
  });

  it("does not mistake `%` continuing an expression or `!pip` inside a string for a notebook line", async () => {
    expect(await scanPython("x = (10\n% 3)\n")).toEqual({ parseError: null, blocked: [], findings: [] });
    const inString = await scanPython('doc = """\n!echo hi\n"""\n');
    expect(inString).toEqual({ parseError: null, blocked: [], findings: [] });
  });
});

describe("scanPython: parse errors", () => {
  it.each([
    ["def f(:\n    pass\n", 1],
    ["print('a')\nx = (1,\n", 2],
    ["for i in range(3)\n    print(i)\n", 1],
    ["x = 1\n  y = 2\n", 2],
    ["if True:\n    a = 1\n      b = 2\n", 3],
    ["  x = 1\n", 1],
  ])("reports the parser's position for %j", async (code, line) => {
    const r = await scanPython(code);
    expect(r.parseError).toMatch(new RegExp(`^Syntax error at line ${line}, column \\d+`));
  });

  it("still blocks what it can see in code that does not parse", async () => {
    const r = await scanPython("import os\ndef broken(:\n");
    expect(r.parseError).not.toBeNull();
    expect(r.blocked.map((f) => f.rule)).toContain("banned-import");
  });

  it("handles deeply nested input without overflowing the stack", async () => {
    const r = await scanPython("x = " + "[".repeat(3000) + "]".repeat(3000) + "\n");
    expect(r.blocked).toEqual([]);
  });
});

// Hostile shapes that once took tens of seconds (web-tree-sitter's `node.parent` searches from the
// root; constant folding re-walked every operator's operands) or overflowed the stack. Each must
// finish well inside the test timeout with the right result.
describe("scanPython on 100,000 adversarial characters", () => {
  const clean = { parseError: null, blocked: [], findings: [] };

  it("a 50,000-link attribute chain", async () => {
    expect(await scanPython("a" + ".b".repeat(49_999))).toEqual(clean);
  });

  it("calls nested 20,000 deep, with and without eval at the bottom", async () => {
    expect(await scanPython("f(".repeat(20_000) + ")".repeat(20_000))).toEqual(clean);
    const r = await scanPython("f(".repeat(20_000) + "eval(x)" + ")".repeat(20_000));
    expect(r.blocked).toEqual([expect.objectContaining({ rule: "dynamic-code", line: 1, column: 40_001 })]);
  });

  it("a 100,000-character comment, name, number, or run of spaces or tabs", async () => {
    expect(await scanPython("#" + "a".repeat(99_999))).toEqual(clean);
    expect(await scanPython("a".repeat(100_000))).toEqual(clean);
    expect(await scanPython("x = " + "9".repeat(100_000))).toEqual(clean);
    expect(await scanPython("x = 1" + " ".repeat(100_000) + "\n")).toEqual(clean);
    expect(await scanPython("x = 1" + "\t".repeat(100_000) + "\n")).toEqual(clean);
  });

  it("a 50,000-term product: returns a result (not folded so deep), no stack overflow", async () => {
    expect(await scanPython("x = [0] * (" + "1*".repeat(49_999) + "1)")).toEqual(clean);
    expect(await scanPython("x = [0] * 1" + "*1".repeat(49_999))).toEqual(clean);
  });

  it("25,000 notebook lines, also after 20,000 unclosed brackets", async () => {
    const r = await scanPython("!x\n".repeat(25_000));
    expect(r.parseError).toBeNull();
    expect(r.blocked).toHaveLength(25_000);
    expect(r.blocked.every((f) => f.rule === "shell-escape")).toBe(true);
    const deep = await scanPython("(".repeat(20_000) + "\n" + "!x\n".repeat(20_000));
    expect(deep.parseError).toMatch(/^Syntax error at line 1, column 1/);
    expect(deep.blocked).toHaveLength(20_000);
  });

  it("25,000 `% 3` continuation lines inside brackets are Python, not notebook lines", async () => {
    expect(await scanPython("x = (1\n" + "% 3\n".repeat(25_000) + ")")).toEqual(clean);
  });
});

describe("scanPython: risk findings for reviewers", () => {
  it("passes harmless data analysis with no findings", async () => {
    const code = [
      "import csv, json, statistics, datetime, math",
      "from collections import Counter, defaultdict",
      "import pandas as pd",
      "import numpy as np",
      "",
      "rows = [{'bucket': 'a', 'last_access': '2024-01-01'}, {'bucket': 'b', 'last_access': '2025-06-01'}]",
      "cutoff = datetime.date(2025, 1, 1)",
      "stale = [r['bucket'] for r in rows if datetime.date.fromisoformat(r['last_access']) < cutoff]",
      "print(json.dumps({'stale': stale, 'mean': statistics.mean([1, 2, 3]), 'sqrt': math.sqrt(2)}))",
      "df = pd.DataFrame(rows)",
      "print(np.arange(10).sum(), Counter(r['bucket'] for r in rows))",
      "for i in range(1000):",
      "    pass",
      "with open('/tmp/data.csv') as f:",
      "    reader = csv.reader(f)",
    ].join("\n");
    expect(await scanPython(code)).toEqual({ parseError: null, blocked: [], findings: [] });
  });

  it.each([
    ["open('/tmp/out.txt', 'w')", "file-write", "medium"],
    ["open('report.csv', mode='a')", "file-write", "medium"],
    ["from pathlib import Path\nPath('x').write_text('y')", "file-write", "medium"],
    ["import urllib.request", "network-module", "medium"],
    ["from http import client", "network-module", "medium"],
    ["import requests", "network-module", "medium"],
    ["while True:\n    pass", "unbounded-loop", "medium"],
    ["while 1:\n    if x: break", "unbounded-loop", "low"],
    ["for i in range(10**9): pass", "large-range", "medium"],
    ["for i in range(0, 50_000_000): pass", "large-range", "medium"],
    ["data = [0] * (10 ** 9)", "large-allocation", "medium"],
    ["import ctypes", "native-code", "high"],
    ["import pickle", "unsafe-deserialization", "medium"],
    ["import marshal", "unsafe-deserialization", "medium"],
    ["getattr(obj, name)", "dynamic-attribute", "medium"],
  ])("flags %j", async (code, rule, severity) => {
    const r = await scanPython(code);
    expect(r.blocked).toEqual([]);
    expect(r.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule, severity })]));
  });

  it("puts findings on the exact line and column", async () => {
    const r = await scanPython("import json\n\nx = 1\nwith open('/tmp/o', 'wb') as f:\n    f.write(b'')\n");
    expect(r.findings).toEqual([expect.objectContaining({ rule: "file-write", line: 4, column: 6 })]);
  });

  it("counts columns the way JavaScript indexes the line (non-ASCII before the finding)", async () => {
    const r = await scanPython("é = 'ü'; import os\n");
    expect(r.blocked[0]).toMatchObject({ line: 1, column: 17 });
  });

  it("keeps one parser for the process (second scan is fast)", async () => {
    await scanPython("x = 1");
    const started = performance.now();
    await scanPython("import json\nprint(json.dumps([1, 2]))\n");
    expect(performance.now() - started).toBeLessThan(20);
  });
});
