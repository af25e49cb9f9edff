import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  EMPTY_FRONTIER,
  EMPTY_ROOT,
  appendLeaf,
  consistencyProof,
  frontierAt,
  frontierRoot,
  fromHex,
  inclusionProof,
  leafHash,
  nodeHash,
  rootOf,
  toHex,
  verifyConsistency,
  verifyInclusion,
  type Frontier,
  type GetPerfect,
} from "./merkle";

/*
 * The published RFC 6962 vectors, as kept in github.com/transparency-dev/merkle
 * (testonly/constants.go, proof/verify_test.go; also in certificate-transparency-go and trillian).
 */
const LEAF_INPUTS = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"];
const ROOTS = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
const NODE_HASHES = [
  [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
    "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
    "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
    "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
  ],
  [
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
  ],
  ["d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7", "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
  ["5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"],
];
// Leaf numbers in these two tables are 1-based, as in the source.
const INCLUSION_VECTORS: { leaf: number; size: number; proof: string[] }[] = [
  { leaf: 1, size: 1, proof: [] },
  { leaf: 1, size: 8, proof: [NODE_HASHES[0][1], NODE_HASHES[1][1], NODE_HASHES[2][1]] },
  { leaf: 6, size: 8, proof: [NODE_HASHES[0][4], NODE_HASHES[1][3], NODE_HASHES[2][0]] },
  { leaf: 3, size: 3, proof: [NODE_HASHES[1][0]] },
  { leaf: 2, size: 5, proof: [NODE_HASHES[0][0], NODE_HASHES[1][1], NODE_HASHES[0][4]] },
];
const CONSISTENCY_VECTORS: { size1: number; size2: number; proof: string[] }[] = [
  { size1: 1, size2: 1, proof: [] },
  { size1: 1, size2: 8, proof: [NODE_HASHES[0][1], NODE_HASHES[1][1], NODE_HASHES[2][1]] },
  { size1: 6, size2: 8, proof: [NODE_HASHES[1][2], NODE_HASHES[1][3], NODE_HASHES[2][0]] },
  { size1: 2, size2: 5, proof: [NODE_HASHES[1][1], NODE_HASHES[0][4]] },
  { size1: 6, size2: 7, proof: [NODE_HASHES[1][2], NODE_HASHES[0][6], NODE_HASHES[2][0]] },
];

const vectorLeaves = LEAF_INPUTS.map((h) => leafHash(Buffer.from(h, "hex")));

/** An in-memory tree: perfect subtrees computed directly from the leaves, counting lookups. */
function memoryTree(leaves: readonly Buffer[]): { getPerfect: GetPerfect; lookups: () => number } {
  let count = 0;
  const getPerfect: GetPerfect = async (level, index) => {
    count++;
    const width = 2 ** level;
    const start = index * width;
    if (start + width > leaves.length) throw new Error(`subtree (${level}, ${index}) is not complete in a tree of ${leaves.length}`);
    return rootOf(leaves.slice(start, start + width));
  };
  return { getPerfect, lookups: () => count };
}

function flipped(hash: Buffer, byte: number): Buffer {
  const copy = Buffer.from(hash);
  copy[byte] ^= 0x40;
  return copy;
}

describe("RFC 6962 hashing", () => {
  it("matches the published leaf and node hashes", () => {
    expect(vectorLeaves.map(toHex)).toEqual(NODE_HASHES[0]);
    expect(toHex(nodeHash(vectorLeaves[0], vectorLeaves[1]))).toBe(NODE_HASHES[1][0]);
    expect(toHex(EMPTY_ROOT)).toBe(ROOTS[0]);
  });

  it("computes the published root for every tree size 0..8", () => {
    for (let size = 0; size <= 8; size++) expect(toHex(rootOf(vectorLeaves.slice(0, size))), `size ${size}`).toBe(ROOTS[size]);
  });

  it("refuses malformed hex and wrong-length hashes", () => {
    expect(() => fromHex("ab")).toThrow(/lower-case hex/);
    expect(() => fromHex("A".repeat(64))).toThrow(/lower-case hex/);
    expect(() => rootOf([Buffer.alloc(31)])).toThrow(/32 bytes/);
  });
});

describe("the frontier", () => {
  it("gives the published root after each append and reports the perfect subtrees each leaf completes", () => {
    let frontier: Frontier = EMPTY_FRONTIER;
    const completed: string[] = [];
    for (let i = 0; i < 8; i++) {
      const step = appendLeaf(frontier, vectorLeaves[i]);
      frontier = step.frontier;
      expect(toHex(frontierRoot(frontier)), `size ${i + 1}`).toBe(ROOTS[i + 1]);
      for (const node of step.completed) {
        expect(toHex(node.hash)).toBe(NODE_HASHES[node.level][node.index]);
        // Stored with the leaf that ends it.
        expect((node.index + 1) * 2 ** node.level - 1).toBe(i);
        completed.push(`${node.level}/${node.index}`);
      }
    }
    expect(completed).toEqual(["1/0", "1/1", "2/0", "1/2", "1/3", "2/1", "3/0"]);
    expect(frontier.hashes.map(toHex)).toEqual([ROOTS[8]]);
  });

  it("is rebuilt from stored perfect subtrees for any size", async () => {
    const leaves = Array.from({ length: 77 }, () => leafHash(randomBytes(8)));
    const { getPerfect } = memoryTree(leaves);
    let frontier: Frontier = EMPTY_FRONTIER;
    for (let size = 0; size <= leaves.length; size++) {
      const rebuilt = await frontierAt(size, getPerfect);
      expect(rebuilt.hashes.map(toHex)).toEqual(frontier.hashes.map(toHex));
      expect(toHex(frontierRoot(rebuilt))).toBe(toHex(rootOf(leaves.slice(0, size))));
      if (size < leaves.length) frontier = appendLeaf(frontier, leaves[size]).frontier;
    }
  });
});

describe("inclusion proofs", () => {
  const { getPerfect } = memoryTree(vectorLeaves);

  it("generates and verifies the published paths", async () => {
    for (const v of INCLUSION_VECTORS) {
      const proof = await inclusionProof(v.leaf - 1, v.size, getPerfect);
      expect(proof.map(toHex), `leaf ${v.leaf} of ${v.size}`).toEqual(v.proof);
      expect(verifyInclusion(vectorLeaves[v.leaf - 1], v.leaf - 1, v.size, proof, fromHex(ROOTS[v.size]))).toBe(true);
    }
  });

  it("refuses the corruptions of the reference suite", () => {
    for (const v of INCLUSION_VECTORS.filter((x) => x.proof.length > 0)) {
      const index = v.leaf - 1;
      const proof = v.proof.map(fromHex);
      const root = fromHex(ROOTS[v.size]);
      const leaf = vectorLeaves[index];
      const bad: [string, boolean][] = [
        ["index - 1", verifyInclusion(leaf, index - 1, v.size, proof, root)],
        ["index + 1", verifyInclusion(leaf, index + 1, v.size, proof, root)],
        ["index ^ 2", verifyInclusion(leaf, index ^ 2, v.size, proof, root)],
        ["size * 2", verifyInclusion(leaf, index, v.size * 2, proof, root)],
        ["size / 2", verifyInclusion(leaf, index, Math.floor(v.size / 2), proof, root)],
        ["wrong leaf", verifyInclusion(leafHash(Buffer.from("WrongLeaf")), index, v.size, proof, root)],
        ["empty root", verifyInclusion(leaf, index, v.size, proof, EMPTY_ROOT)],
        ["trailing root", verifyInclusion(leaf, index, v.size, [...proof, root], root)],
        ["preceding root", verifyInclusion(leaf, index, v.size, [root, ...proof], root)],
        ["removed component", verifyInclusion(leaf, index, v.size, proof.slice(0, -1), root)],
        ["short component", verifyInclusion(leaf, index, v.size, [...proof.slice(0, -1), Buffer.alloc(0)], root)],
      ];
      proof.forEach((_, i) => bad.push([`flipped proof[${i}]`, verifyInclusion(leaf, index, v.size, proof.map((p, j) => (j === i ? flipped(p, 0) : p)), root)]));
      expect(bad.filter(([, ok]) => ok).map(([what]) => `leaf ${v.leaf}/${v.size}: ${what}`)).toEqual([]);
    }
  });

  it("refuses indexes outside the tree", async () => {
    expect(verifyInclusion(vectorLeaves[0], 0, 0, [], EMPTY_ROOT)).toBe(false);
    expect(verifyInclusion(vectorLeaves[0], 1, 1, [], vectorLeaves[0])).toBe(false);
    await expect(inclusionProof(8, 8, getPerfect)).rejects.toThrow(/not in a tree/);
  });
});

describe("consistency proofs", () => {
  const { getPerfect } = memoryTree(vectorLeaves);

  it("generates and verifies the published proofs", async () => {
    for (const v of CONSISTENCY_VECTORS) {
      const proof = await consistencyProof(v.size1, v.size2, getPerfect);
      expect(proof.map(toHex), `${v.size1} → ${v.size2}`).toEqual(v.proof);
      expect(verifyConsistency(v.size1, v.size2, fromHex(ROOTS[v.size1]), fromHex(ROOTS[v.size2]), proof)).toBe(true);
    }
  });

  it("refuses the corruptions of the reference suite", () => {
    for (const v of CONSISTENCY_VECTORS.filter((x) => x.proof.length > 0)) {
      const proof = v.proof.map(fromHex);
      const r1 = fromHex(ROOTS[v.size1]);
      const r2 = fromHex(ROOTS[v.size2]);
      const check = (s1: number, s2: number, a: Buffer, b: Buffer, p: Buffer[]) => verifyConsistency(s1, s2, a, b, p);
      const bad: [string, boolean][] = [
        ["size1 - 1", check(v.size1 - 1, v.size2, r1, r2, proof)],
        ["size1 + 1", check(v.size1 + 1, v.size2, r1, r2, proof)],
        ["size1 ^ 2", check(v.size1 ^ 2, v.size2, r1, r2, proof)],
        ["size2 * 2", check(v.size1, v.size2 * 2, r1, r2, proof)],
        ["size2 / 2", check(v.size1, Math.floor(v.size2 / 2), r1, r2, proof)],
        ["wrong root1", check(v.size1, v.size2, EMPTY_ROOT, r2, proof)],
        ["wrong root2", check(v.size1, v.size2, r1, EMPTY_ROOT, proof)],
        ["swapped roots", check(v.size1, v.size2, r2, r1, proof)],
        ["empty proof", check(v.size1, v.size2, r1, r2, [])],
        ["trailing root1", check(v.size1, v.size2, r1, r2, [...proof, r1])],
        ["trailing root2", check(v.size1, v.size2, r1, r2, [...proof, r2])],
        ["preceding root1", check(v.size1, v.size2, r1, r2, [r1, ...proof])],
        ["preceding proof[0]", check(v.size1, v.size2, r1, r2, [proof[0], ...proof])],
        ["truncated", check(v.size1, v.size2, r1, r2, proof.slice(0, -1))],
      ];
      proof.forEach((_, i) => bad.push([`flipped proof[${i}]`, check(v.size1, v.size2, r1, r2, proof.map((p, j) => (j === i ? flipped(p, 0) : p)))]));
      expect(bad.filter(([, ok]) => ok).map(([what]) => `${v.size1} → ${v.size2}: ${what}`)).toEqual([]);
    }
  });

  it("treats the trivial cases as the reference does", () => {
    const r1 = fromHex(ROOTS[1]);
    expect(verifyConsistency(0, 0, EMPTY_ROOT, EMPTY_ROOT, [])).toBe(true);
    expect(verifyConsistency(0, 5, EMPTY_ROOT, fromHex(ROOTS[5]), [])).toBe(true);
    expect(verifyConsistency(1, 1, r1, r1, [])).toBe(true);
    expect(verifyConsistency(1, 1, r1, EMPTY_ROOT, [])).toBe(false);
    expect(verifyConsistency(1, 1, r1, r1, [EMPTY_ROOT])).toBe(false);
    expect(verifyConsistency(0, 1, EMPTY_ROOT, r1, [EMPTY_ROOT])).toBe(false);
    expect(verifyConsistency(2, 1, fromHex(ROOTS[2]), r1, [])).toBe(false);
  });
});

describe("random trees up to 300 leaves", () => {
  it("every generated proof verifies, and changing any byte, index or size makes it fail", async () => {
    const leaves = Array.from({ length: 300 }, () => leafHash(randomBytes(12)));
    const roots = Array.from({ length: leaves.length + 1 }, (_, n) => rootOf(leaves.slice(0, n)));
    const { getPerfect } = memoryTree(leaves);
    const sizes = [1, 2, 3, 7, 8, 9, 31, 64, 100, 127, 128, 129, 255, 256, 257, 300, ...Array.from({ length: 8 }, () => 1 + Math.floor(Math.random() * 300))];
    for (const size of sizes) {
      // Every leaf of small trees, a sample of large ones.
      const indexes = size <= 64 ? Array.from({ length: size }, (_, i) => i) : [0, 1, size - 2, size - 1, Math.floor(size / 2), Math.floor(Math.random() * size)];
      for (const index of indexes) {
        const proof = await inclusionProof(index, size, getPerfect);
        expect(verifyInclusion(leaves[index], index, size, proof, roots[size]), `inclusion ${index}/${size}`).toBe(true);
        if (index + 1 < size) expect(verifyInclusion(leaves[index], index + 1, size, proof, roots[size])).toBe(false);
        // Sizes with the same path shape share proofs (a property of RFC 6962), so change the depth.
        expect(verifyInclusion(leaves[index], index, size * 2, proof, roots[size])).toBe(false);
        expect(verifyInclusion(leaves[index], index, Math.floor(size / 2), proof, roots[size])).toBe(false);
        expect(verifyInclusion(flipped(leaves[index], 31), index, size, proof, roots[size])).toBe(false);
        for (let i = 0; i < proof.length; i++) {
          const bad = proof.map((p, j) => (j === i ? flipped(p, i % 32) : p));
          expect(verifyInclusion(leaves[index], index, size, bad, roots[size])).toBe(false);
        }
      }
      const olds = size <= 64 ? Array.from({ length: size }, (_, i) => i + 1) : [1, 2, size - 1, Math.floor(size / 3), Math.floor(Math.random() * size) + 1];
      for (const old of olds) {
        const proof = await consistencyProof(old, size, getPerfect);
        expect(verifyConsistency(old, size, roots[old], roots[size], proof), `consistency ${old} → ${size}`).toBe(true);
        if (old === size) continue;
        expect(verifyConsistency(old, size, flipped(roots[old], 5), roots[size], proof)).toBe(false);
        expect(verifyConsistency(old, size, roots[old], flipped(roots[size], 5), proof)).toBe(false);
        if (old > 1) expect(verifyConsistency(old - 1, size, roots[old], roots[size], proof)).toBe(false);
        expect(verifyConsistency(old, size * 2, roots[old], roots[size], proof)).toBe(false);
        for (let i = 0; i < proof.length; i++) {
          const bad = proof.map((p, j) => (j === i ? flipped(p, 7) : p));
          expect(verifyConsistency(old, size, roots[old], roots[size], bad)).toBe(false);
        }
      }
    }
  });

  it("fetches each perfect subtree of a proof once", async () => {
    const leaves = Array.from({ length: 1000 }, () => leafHash(randomBytes(4)));
    const tree = memoryTree(leaves);
    const proof = await consistencyProof(700, 1000, tree.getPerfect);
    expect(tree.lookups()).toBeLessThanOrEqual(2 * proof.length + 10);
  });
});
