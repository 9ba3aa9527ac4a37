// A small, strict XML reader for the JUnit reports the CLI writes: elements, attributes, text,
// the five predefined entities and numeric references, the XML declaration. Anything else
// (an unescaped `<` or `&`, a mismatched tag, a bare control character) throws, so a report
// that a CI server could not read fails the test.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: string): string {
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(raw)) throw new Error(`control character in ${where}`);
  return raw.replace(/&([^;]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(';')) throw new Error(`bare & in ${where}`);
    if (name in ENTITIES) return ENTITIES[name]!;
    const m = /^#(x[0-9a-fA-F]+|\d+)$/.exec(name);
    if (!m) throw new Error(`unknown entity &${name}; in ${where}`);
    return String.fromCodePoint(m[1]!.startsWith('x') ? parseInt(m[1]!.slice(1), 16) : Number(m[1]));
  });
}

export function parseXml(xml: string): XmlElement {
  let i = 0;
  const decl = /^<\?xml [^?]*\?>\s*/.exec(xml);
  if (decl) i = decl[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < xml.length) {
    if (xml[i] === '<') {
      const end = xml.indexOf('>', i);
      if (end < 0) throw new Error('unterminated tag');
      const tag = xml.slice(i + 1, end);
      i = end + 1;
      if (tag.startsWith('/')) {
        const open = stack.pop();
        if (!open || open.name !== tag.slice(1)) throw new Error(`mismatched </${tag.slice(1)}>`);
        continue;
      }
      const selfClosing = tag.endsWith('/');
      const body = selfClosing ? tag.slice(0, -1) : tag;
      const m = /^([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*$/.exec(body);
      if (!m) throw new Error(`malformed tag <${tag}>`);
      const attrs: Record<string, string> = {};
      for (const a of m[2]!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
        if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        attrs[a[1]!] = decode(a[2]!.replace(/[\t\n\r]/g, ' '), `attribute ${a[1]}`);
      }
      const el: XmlElement = { name: m[1]!, attrs, children: [], text: '' };
      if (stack.length) stack[stack.length - 1]!.children.push(el);
      else if (root) throw new Error('more than one root element');
      else root = el;
      if (!selfClosing) stack.push(el);
    } else {
      const next = xml.indexOf('<', i);
      const raw = xml.slice(i, next < 0 ? xml.length : next);
      i = next < 0 ? xml.length : next;
      if (raw.includes('>') && !stack.length) throw new Error('text outside the root');
      if (stack.length) stack[stack.length - 1]!.text += decode(raw, 'text');
      else if (raw.trim()) throw new Error('text outside the root');
    }
  }
  if (stack.length || !root) throw new Error('unclosed element');
  return root;
}

export function all(el: XmlElement, name: string): XmlElement[] {
  return [...(el.name === name ? [el] : []), ...el.children.flatMap((c) => all(c, name))];
}
