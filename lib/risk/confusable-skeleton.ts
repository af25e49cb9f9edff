// The Latin, Cyrillic and Greek lookalikes of UTS #39's confusables.txt that matter for domain
// names and email addresses, mapped to their Latin prototypes (lower case: domains ignore case).
const PROTOTYPES: Record<string, string> = {
  // Cyrillic
  а: "a", в: "b", е: "e", ё: "e", һ: "h", і: "i", ї: "i", ј: "j", к: "k", ӏ: "l", м: "m", н: "h", о: "o", р: "p", с: "c", ѕ: "s",
  т: "t", у: "y", ү: "y", х: "x", ԁ: "d", ԛ: "q", ԝ: "w", ԍ: "g", ɡ: "g", ҽ: "e", ь: "b", п: "n",
  А: "a", В: "b", Е: "e", Н: "h", І: "i", Ј: "j", К: "k", Ӏ: "l", М: "m", О: "o", Р: "p", С: "c", Ѕ: "s", Т: "t", Ү: "y", Х: "x",
  Ԛ: "q", Ԝ: "w",
  // Greek
  α: "a", β: "b", ε: "e", η: "n", ι: "i", κ: "k", ν: "v", ο: "o", ρ: "p", τ: "t", υ: "u", χ: "x", γ: "y", ϲ: "c", ϳ: "j",
  Α: "a", Β: "b", Ε: "e", Ζ: "z", Η: "h", Ι: "i", Κ: "k", Μ: "m", Ν: "n", Ο: "o", Ρ: "p", Τ: "t", Υ: "y", Χ: "x", Ϲ: "c",
  // Latin lookalikes and digits
  ı: "i", ɑ: "a", ǀ: "l", ℓ: "l", "0": "o", "1": "l", "|": "l",
};

/**
 * A UTS #39-style skeleton of a domain: two domains with the same skeleton look alike to a reader.
 * NFKC folds full-width and compatibility forms; lookalike letters become their Latin prototype;
 * "rn" reads as "m". Linear in the input.
 */
export function confusableSkeleton(domain: string): string {
  let out = "";
  for (const ch of domain.normalize("NFKC")) out += PROTOTYPES[ch] ?? ch.toLowerCase();
  return out.replaceAll("rn", "m");
}

export type Script = "latin" | "cyrillic" | "greek" | "other";

const LATIN = /^\p{Script=Latin}$/u;
const CYRILLIC = /^\p{Script=Cyrillic}$/u;
const GREEK = /^\p{Script=Greek}$/u;
const LETTER = /^\p{L}$/u;

/** The script of a letter (null for anything that is not a letter). */
export function scriptOf(ch: string): Script | null {
  if (ch < "\u0080") return /[A-Za-z]/.test(ch) ? "latin" : null;
  if (!LETTER.test(ch)) return null;
  if (LATIN.test(ch)) return "latin";
  if (CYRILLIC.test(ch)) return "cyrillic";
  if (GREEK.test(ch)) return "greek";
  return "other";
}
