import * as TreeSitterModule from "@vscode/tree-sitter-wasm";
import { describe, expect, it, vi } from "vitest";
import { MAX_LISTED as MAX_LISTED_FINDINGS } from "@/lib/risk/listed";
import { DEFAULT_BANNED_MODULES, scanPython } from "./prescan";

/** The classes prescan.ts uses (the package is UMD: under Node's ESM loader only `default` carries them). */
const treeSitter = () => ((TreeSitterModule as { default?: typeof TreeSitterModule }).default ?? TreeSitterModule);

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
    // Every line is blocked: the first MAX_LISTED_FINDINGS one by one, the rest counted.
    expect(r.blocked).toHaveLength(MAX_LISTED_FINDINGS + 1);
    expect(r.blocked.slice(0, -1).every((f) => f.rule === "shell-escape")).toBe(true);
    expect(r.blocked.at(-1)).toMatchObject({ rule: "more-findings", line: MAX_LISTED_FINDINGS + 1, message: expect.stringContaining("shell-escape ×24,900, on lines 101–25,000") });
    const deep = await scanPython("(".repeat(20_000) + "\n" + "!x\n".repeat(20_000));
    expect(deep.parseError).toMatch(/^Syntax error at line 1, column 1/);
    expect(deep.blocked.at(-1)?.message).toContain("shell-escape ×19,900");
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

  it("lists at most MAX_LISTED_FINDINGS findings and counts the rest, keeping every rule and the most severe", async () => {
    // 7,000 lines with a finding each; one native-code import (high) and one network import (a rule
    // of its own) near the end, past where a cap by line would stop.
    const lines = Array.from({ length: 7_000 }, () => "import pickle");
    lines[6_500] = "import ctypes";
    lines[6_800] = "import requests";
    const { findings, blocked } = await scanPython(lines.join("\n"));
    expect(blocked).toEqual([]);
    expect(findings).toHaveLength(MAX_LISTED_FINDINGS + 1);
    expect(findings.map((f) => f.line)).toEqual([...findings.map((f) => f.line)].sort((a, b) => a - b));
    expect(findings).toEqual(expect.arrayContaining([
      expect.objectContaining({ rule: "native-code", severity: "high", line: 6_501 }),
      expect.objectContaining({ rule: "network-module", line: 6_801 }),
    ]));
    const more = findings.filter((f) => f.rule === "more-findings");
    expect(more).toEqual([
      expect.objectContaining({
        severity: "medium",
        line: MAX_LISTED_FINDINGS - 1,
        message: "6,900 more findings like those listed, not listed one by one: unsafe-deserialization ×6,900, on lines 99–7,000",
      }),
    ]);
    expect(findings.filter((f) => f.rule === "unsafe-deserialization")).toHaveLength(MAX_LISTED_FINDINGS - 2);
  });

  it("lists every finding up to the cap, with no count", async () => {
    const { findings } = await scanPython(Array.from({ length: MAX_LISTED_FINDINGS }, () => "import pickle").join("\n"));
    expect(findings).toHaveLength(MAX_LISTED_FINDINGS);
    expect(findings.some((f) => f.rule === "more-findings")).toBe(false);
  });

  it("puts findings on the exact line and column", async () => {
    const r = await scanPython("import json\n\nx = 1\nwith open('/tmp/o', 'wb') as f:\n    f.write(b'')\n");
    expect(r.findings).toEqual([expect.objectContaining({ rule: "file-write", line: 4, column: 6 })]);
  });

  it("counts columns the way JavaScript indexes the line (non-ASCII before the finding)", async () => {
    const r = await scanPython("é = 'ü'; import os\n");
    expect(r.blocked[0]).toMatchObject({ line: 1, column: 17 });
  });

  it("keeps one parser for the process (a second scan loads nothing again)", async () => {
    await scanPython("x = 1");
    // Counted, not timed: how fast a scan is depends on how busy the machine is.
    const api = treeSitter();
    const init = vi.spyOn(api.Parser, "init");
    const load = vi.spyOn(api.Language, "load");
    try {
      const r = await scanPython("import json\nprint(json.dumps([1, 2]))\n");
      expect(r.blocked).toEqual([]);
      expect(init).not.toHaveBeenCalled();
      expect(load).not.toHaveBeenCalled();
    } finally {
      init.mockRestore();
      load.mockRestore();
    }
  });
});

// What a red team tries first once `import os` is blocked: the same module through another module's
// attribute, asyncio's own subprocess functions, and names Python folds (NFKC) but a literal compare
// does not. Each must be blocked, or tagged high on its line, never reach a reviewer untagged.
describe("scanPython: bypasses through other modules and lookalike names", () => {
  it.each([
    ["import tempfile\ntempfile._os.system('id')", 2, 10],
    ["import pathlib\npathlib.os.system('id')", 2, 9],
    ["import random\nrandom._os.popen('id')", 2, 8],
    ["import pandas\npandas.io.common.os.system('id')", 2, 18],
    ["import traceback\ntraceback.sys.modules['os']", 2, 11],
    ["import tempfile as t\nx = t._subprocess", 2, 7],
    ["import logging\nlogging.shutil.rmtree('/')", 2, 9],
    ["from tempfile import _os", 1, 22],
    ["from pandas.io.common import os as o", 1, 30],
    ["from pathlib import os, Path", 1, 21],
    ["import pandas.io.common.os", 1, 8],
  ])("blocks a banned module reached through another module: %j", async (code, line, column) => {
    const r = await scanPython(code);
    expect(r.parseError).toBeNull();
    expect(r.blocked).toEqual(expect.arrayContaining([expect.objectContaining({ rule: "module-via-attribute", line, column, severity: "critical" })]));
    expect(r.blocked[0].message).toMatch(/reaches banned module "(os|sys|subprocess|shutil)"/);
  });

  it.each([
    ["import asyncio\nasyncio.run(asyncio.create_subprocess_exec('id'))", 2],
    ["import asyncio\nasyncio.create_subprocess_shell('id')", 2],
    ["from asyncio import create_subprocess_exec", 1],
    ["import asyncio\nloop = asyncio.get_event_loop()\nloop.subprocess_shell(f, 'id')", 3],
  ])("blocks asyncio's subprocess functions: %j", async (code, line) => {
    const r = await scanPython(code);
    expect(r.blocked).toEqual(expect.arrayContaining([expect.objectContaining({ rule: "process-spawn", line })]));
  });

  it.each([
    ["import asyncio.subprocess"],
    ["import asyncio\nasyncio.subprocess.PIPE"],
    ["from asyncio import subprocess"],
    ["from asyncio.subprocess import PIPE"],
  ])("blocks asyncio's subprocess module, a banned module by another path: %j", async (code) => {
    expect(await blockedRules(code)).toContain("module-via-attribute");
  });

  it("blocks a banned module's bare name a star import brought in, once per reason", async () => {
    const r = await scanPython("from pandas.io.common import *\nos.system('id')");
    expect(r.blocked).toEqual([expect.objectContaining({ rule: "banned-name", line: 2, column: 1 })]);
    // After a blocked `import os`, its uses add nothing.
    expect(await blockedRules("import os\nprint(os.listdir('/'))")).toEqual(["banned-import"]);
    expect(await blockedRules("from socket import socket")).toEqual(["banned-import"]);
  });

  it.each([["import code\ncode.InteractiveInterpreter().runsource('import os')"], ["from codeop import compile_command"]])(
    "blocks the modules that are exec by another name: %j",
    async (code) => {
      expect(await blockedRules(code)).toEqual(["dynamic-code"]);
    },
  );

  it.each([["import timeit\ntimeit.timeit('import os')"], ["import pdb"], ["from cProfile import run"], ["import doctest"]])(
    "tags modules that run code given as a string high: %j",
    async (code) => {
      const r = await scanPython(code);
      expect(r.blocked).toEqual([]);
      expect(r.findings).toEqual([expect.objectContaining({ rule: "runs-code-string", severity: "high", line: 1 })]);
    },
  );

  it("tells the author what to write for a data column that shares a module's name", async () => {
    const r = await scanPython("import pandas as pd\ndf = pd.DataFrame({'os': ['linux']})\nprint(df.os)");
    expect(r.blocked).toEqual([expect.objectContaining({ rule: "module-via-attribute", line: 3, column: 10 })]);
    expect(r.blocked[0].message).toContain('use df["os"]');
  });

  it("follows the configured banned list: a module that may be imported may be reached", async () => {
    expect(await blockedRules("import tempfile\ntempfile._os.getpid()", { bannedModules: ["socket"] })).toEqual([]);
    expect(await blockedRules("import asyncio\nasyncio.create_subprocess_exec('id')", { bannedModules: ["os"] })).toEqual([]);
    expect(await blockedRules("import ssl\nssl._socket", { bannedModules: ["socket"] })).toEqual(["module-via-attribute"]);
  });

  it.each([
    ["import logging\nlogging.importlib.import_module('os')", "dynamic-import"],
    ["import inspect\ninspect.builtins.exec('x')", "builtins-access"],
    ["import tempfile\ntempfile.__dict__['_os']", "module-via-attribute"],
    ["import tempfile\ntempfile.__dict__.get('_os')", "module-via-attribute"],
    ["import pathlib\nvars(pathlib)['os']", "module-via-attribute"],
    ["import random\ngetattr(random, '_os')", "module-via-attribute"],
    ["import traceback\ngetattr(traceback, 'sys', None)", "module-via-attribute"],
    ["import tempfile\nobject.__getattribute__(tempfile, '_os')", "module-via-attribute"],
    ["f = lambda: 0\nf.__globals__['__builtins__']", "sandbox-escape"],
    ["import sys as s", "banned-import"],
    ["def f(): pass\nf.__code__", "sandbox-escape"],
    ["try:\n    1/0\nexcept Exception as e:\n    e.__traceback__.tb_frame.f_back", "sandbox-escape"],
    ["import tempfile\ntempfile.__spec__.loader", "sandbox-escape"],
  ])("blocks builtins, importlib and namespace traversal reached by attribute or key: %j", async (code, rule) => {
    expect(await blockedRules(code)).toContain(rule);
  });

  it.each([
    ["ｅｘｅｃ('imp'+'ort os')", "dynamic-code", 1, 1],
    ["x = 1\n𝐞𝐯𝐚𝐥('1')", "dynamic-code", 2, 1],
    ["import ｏｓ", "banned-import", 1, 8],
    ["from ｓｙｓ import modules", "banned-import", 1, 6],
    ["__ｉｍｐｏｒｔ__('os')", "dynamic-import", 1, 1],
    ["import tempfile\ntempfile._ｏｓ.system('id')", "module-via-attribute", 2, 10],
    ["x.__ｇｌｏｂａｌｓ__", "sandbox-escape", 1, 3],
    ["ｂｕｉｌｔｉｎｓ.exec('x')", "builtins-access", 1, 1],
    ["import asyncio\nasyncio.ｃｒｅａｔｅ_ｓｕｂｐｒｏｃｅｓｓ_ｓｈｅｌｌ('id')", "process-spawn", 2, 9],
  ])("normalises identifiers as Python does (NFKC) before comparing: %j", async (code, rule, line, column) => {
    const r = await scanPython(code);
    expect(r.parseError).toBeNull();
    expect(r.blocked).toEqual(expect.arrayContaining([expect.objectContaining({ rule, line, column })]));
  });

  it("normalises names in the checks that tag, not only in those that block", async () => {
    const r = await scanPython("ｇｅｔａｔｔｒ(obj, name)\nｏｐｅｎ('/tmp/o', 'w')\nimport ｃｔｙｐｅｓ");
    expect(r.blocked).toEqual([]);
    expect(r.findings).toEqual([
      expect.objectContaining({ rule: "dynamic-attribute", line: 1, severity: "medium" }),
      expect.objectContaining({ rule: "file-write", line: 2, severity: "medium" }),
      expect.objectContaining({ rule: "native-code", line: 3, severity: "high" }),
    ]);
  });

  it("compares string contents literally, as getattr does (a full-width name in a string is no builtin)", async () => {
    expect(await scanPython("label = 'ｅｘｅｃ'\nprint(label)")).toEqual({ parseError: null, blocked: [], findings: [] });
  });

  it.each([
    ["import numpy as np\nptr = np.zeros(3).ctypes.data", 2, 19],
    ["import tempfile\nm = tempfile._ctypes", 2, 14],
  ])("tags native code reached by attribute high on its line: %j", async (code, line, column) => {
    const r = await scanPython(code);
    expect(r.blocked).toEqual([]);
    expect(r.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: "native-code", severity: "high", line, column })]));
  });

  it("tags a module's __dict__ as namespace access", async () => {
    const r = await scanPython("import json\nnames = json.__dict__");
    expect(r.blocked).toEqual([]);
    expect(r.findings).toEqual([expect.objectContaining({ rule: "namespace-access", severity: "medium", line: 2 })]);
  });

  it("does not block plain data analysis that never reaches os (pandas, numpy, random, pathlib, a column named os)", async () => {
    const code = [
      "import random, statistics, platform",
      "from pathlib import Path, PurePosixPath",
      "import pandas as pd",
      "import numpy as np",
      "random.seed(7)",
      "sample = [random.random() for _ in range(100)]",
      "name = Path('data/buckets.csv').name",
      "stem = PurePosixPath('a/b.txt').stem",
      "df = pd.DataFrame({'os': ['linux', 'mac'], 'sys_time': [1.0, 2.0], 'cost': [3, 4]})",
      "by_os = df.groupby('os')['cost'].sum()",
      "print(df['os'].value_counts(), df.sys_time.mean(), df.cost.max())",
      "osx = df[df['os'] == 'mac']",
      "arr = np.asarray(sample).reshape(10, 10)",
      "print(arr.mean(axis=0), np.linalg.norm(arr), statistics.stdev(sample), platform.python_version())",
      "config = {'os': 'linux', 'sys': 'x', '_os': 1}",
      "print(config['os'], getattr(df, 'shape'))",
    ].join("\n");
    const r = await scanPython(code);
    expect(r.parseError).toBeNull();
    expect(r.blocked).toEqual([]);
    // `pathlib` is a low "system-module" tag today; nothing here reaches medium or above.
    expect(r.findings.filter((f) => f.severity !== "low")).toEqual([]);
  });

  it("stays linear on 100,000 characters of lookalike names and module hops", async () => {
    expect(await scanPython("ｘ".repeat(100_000))).toEqual({ parseError: null, blocked: [], findings: [] });
    const hops = await scanPython("t" + "._os".repeat(24_999));
    expect(hops.blocked.at(-1)?.message).toMatch(/^24,899 more findings/);
    const calls = await scanPython("ｅｘｅｃ(1)\n".repeat(12_500));
    expect(calls.blocked.at(-1)?.message).toMatch(/^12,400 more findings/);
  });
});
