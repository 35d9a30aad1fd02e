// XML character and entity references in text a parser took raw (fast-xml-parser with processEntities off, so
// markup inside a value stays text): android_xml.ts and xliff.ts decode them the same way.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** `&amp;`, `&#233;`, `&#xE9;` and the other predefined entities decoded; anything else kept as written. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name[0] === '#') {
      const cp = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(cp) && cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
    }
    // Own entities only: `&constructor;` is not an entity (on a plain object it found Object).
    return Object.hasOwn(ENTITIES, name) ? ENTITIES[name] : whole;
  });
}
