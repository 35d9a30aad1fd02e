declare module 'snowball-stemmers' {
  /** One language's Snowball stemmer: `stem` takes a lower-case word (packages/core/src/terms/stem.ts). */
  export interface Stemmer {
    stem(word: string): string;
  }
  /** A stemmer by Snowball's algorithm name (`english`, `german`, ...), as the package's README documents it. */
  export function newStemmer(algorithm: string): Stemmer;
  /** The algorithm names the package has. */
  export function algorithms(): string[];
}
