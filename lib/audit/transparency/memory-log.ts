import { EMPTY_FRONTIER, appendLeaf, consistencyProof, frontierAt, frontierRoot, inclusionProof, leafHash, type Frontier, type GetPerfect } from "./merkle";

/**
 * An append-only log held in memory, stored the way the database stores it: each leaf position
 * keeps its leaf hash and the perfect subtrees that end there. The reference the database-backed
 * log can be checked against, and the log the tests and tools use.
 */
export class MemoryLog {
  private frontier: Frontier = EMPTY_FRONTIER;
  /** completed[i][level] = hash of the perfect subtree of that level ending at leaf position i (level 0: the leaf). */
  private readonly completed: Buffer[][] = [];

  get size(): number {
    return this.frontier.size;
  }

  append(leafBytes: Uint8Array): number {
    return this.appendHash(leafHash(leafBytes));
  }

  appendHash(hash: Buffer): number {
    const step = appendLeaf(this.frontier, hash);
    const atPosition = [hash];
    for (const node of step.completed) atPosition[node.level] = node.hash;
    this.completed.push(atPosition);
    this.frontier = step.frontier;
    return this.frontier.size - 1;
  }

  getPerfect: GetPerfect = async (level, index) => {
    const position = (index + 1) * 2 ** level - 1;
    const hash = this.completed[position]?.[level];
    if (!hash) throw new Error(`no perfect subtree (${level}, ${index}) in a log of ${this.size}`);
    return hash;
  };

  async root(size = this.size): Promise<Buffer> {
    if (size === this.size) return frontierRoot(this.frontier);
    return frontierRoot(await frontierAt(size, this.getPerfect));
  }

  inclusionProof(index: number, size = this.size): Promise<Buffer[]> {
    return inclusionProof(index, size, this.getPerfect);
  }

  consistencyProof(oldSize: number, newSize = this.size): Promise<Buffer[]> {
    return consistencyProof(oldSize, newSize, this.getPerfect);
  }
}
