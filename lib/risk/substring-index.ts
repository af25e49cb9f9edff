// Separates the texts inside the automaton: above every UTF-16 code unit, so no query crosses it.
const SEPARATOR = 0x10000;
const EMPTY = -1;

/**
 * "Does this string occur in one of these texts, and how long a run of it does?" in time linear
 * in the string, after a linear build: a suffix automaton (Blumer et al. 1985) over the texts
 * joined by a separator (`includes` per pair costs the product and is super-linear on repetitive
 * text). At most 2n states and 3n transitions, in typed arrays (open addressing), not Maps.
 */
export class SubstringIndex {
  private readonly len: Int32Array;
  private readonly link: Int32Array;
  /** Each state's first transition slot, chained through `slotNext` (to copy them when cloning). */
  private readonly firstSlot: Int32Array;
  private readonly slotState: Int32Array;
  private readonly slotCode: Int32Array;
  private readonly slotTarget: Int32Array;
  private readonly slotNext: Int32Array;
  private readonly mask: number;
  // Random per index, so no input can be crafted to make the probes collide.
  private readonly seed = (Math.random() * 0x100000000) | 0;
  private states = 1;

  constructor(texts: readonly string[]) {
    const units = texts.reduce((n, t) => n + t.length + 1, 0);
    const maxStates = 2 * units + 2;
    this.len = new Int32Array(maxStates);
    this.link = new Int32Array(maxStates).fill(EMPTY);
    this.firstSlot = new Int32Array(maxStates).fill(EMPTY);
    // At most 3n transitions, kept under three quarters full.
    let size = 16;
    while (size * 3 < 4 * (3 * units + 4)) size *= 2;
    this.mask = size - 1;
    this.slotState = new Int32Array(size).fill(EMPTY);
    this.slotCode = new Int32Array(size);
    this.slotTarget = new Int32Array(size);
    this.slotNext = new Int32Array(size);

    let last = 0;
    texts.forEach((text, i) => {
      if (i > 0) last = this.extend(last, SEPARATOR);
      for (let j = 0; j < text.length; j++) last = this.extend(last, text.charCodeAt(j));
    });
  }

  /** Whether `s` occurs inside one of the texts (the empty string always does). */
  contains(s: string): boolean {
    let state = 0;
    for (let i = 0; i < s.length && state !== EMPTY; i++) state = this.target(state, s.charCodeAt(i));
    return state !== EMPTY;
  }

  /** The length of the longest run of `s` that occurs inside one of the texts. */
  longestSharedRun(s: string): number {
    let state = 0;
    let length = 0;
    let best = 0;
    for (let i = 0; i < s.length; i++) {
      const code = s.charCodeAt(i);
      while (state !== 0 && this.target(state, code) === EMPTY) {
        state = this.link[state];
        length = this.len[state];
      }
      const next = this.target(state, code);
      if (next === EMPTY) {
        length = 0;
      } else {
        state = next;
        length++;
      }
      if (length > best) best = length;
    }
    return best;
  }

  private extend(last: number, code: number): number {
    const current = this.states++;
    this.len[current] = this.len[last] + 1;
    let p = last;
    while (p !== EMPTY && this.target(p, code) === EMPTY) {
      this.setTarget(p, code, current);
      p = this.link[p];
    }
    if (p === EMPTY) {
      this.link[current] = 0;
      return current;
    }
    const q = this.target(p, code);
    if (this.len[p] + 1 === this.len[q]) {
      this.link[current] = q;
      return current;
    }
    const clone = this.states++;
    this.len[clone] = this.len[p] + 1;
    this.link[clone] = this.link[q];
    for (let slot = this.firstSlot[q]; slot !== EMPTY; slot = this.slotNext[slot]) {
      this.setTarget(clone, this.slotCode[slot], this.slotTarget[slot]);
    }
    while (p !== EMPTY && this.target(p, code) === q) {
      this.setTarget(p, code, clone);
      p = this.link[p];
    }
    this.link[q] = clone;
    this.link[current] = clone;
    return current;
  }

  private target(state: number, code: number): number {
    const slot = this.slotOf(state, code);
    return this.slotState[slot] === EMPTY ? EMPTY : this.slotTarget[slot];
  }

  private setTarget(state: number, code: number, target: number): void {
    const slot = this.slotOf(state, code);
    if (this.slotState[slot] === EMPTY) {
      this.slotState[slot] = state;
      this.slotCode[slot] = code;
      this.slotNext[slot] = this.firstSlot[state];
      this.firstSlot[state] = slot;
    }
    this.slotTarget[slot] = target;
  }

  /** The slot holding (state, code), or the empty slot where it would go (linear probing). */
  private slotOf(state: number, code: number): number {
    let h = Math.imul(state ^ this.seed, 0x9e3779b1) ^ code;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    let slot = (h ^ (h >>> 13)) & this.mask;
    while (this.slotState[slot] !== EMPTY && (this.slotState[slot] !== state || this.slotCode[slot] !== code)) {
      slot = (slot + 1) & this.mask;
    }
    return slot;
  }
}
