import { TextBytes } from '../src/text-bytes.js';

// TextBytes must give exactly the bytes Buffer.from gives for the same text joined, whatever the
// characters: ASCII copied a character at a time, anything else through UTF-8, long parts natively.
describe('TextBytes', () => {
  const parts = [
    '{"name":',
    JSON.stringify('Tunnel "Nord" \\ Ü\u2028 ✓'),
    ',"emoji":"😀 after a pair",',
    'a'.repeat(65),
    'ä'.repeat(70),
    '"x":3512345.101',
    'mixed ascii then ü then 😀 then ascii',
    '',
    '}',
  ];

  it('writes the same bytes as Buffer.from of the joined text, growing from a tiny buffer', () => {
    const w = new TextBytes(1);
    for (const p of parts) w.text(p);
    const expected = Buffer.from(parts.join(''));
    expect(w.length).toBe(expected.length);
    expect(w.finish().equals(expected)).toBe(true);
  });

  it('appends bytes as they are, between texts', () => {
    const w = new TextBytes(8);
    w.text('[').bytes(Buffer.from('"ü",')).text('"é"]');
    expect(w.finish().toString('utf8')).toBe('["ü","é"]');
  });

  it('holds many parts: the text of 10,000 records reads back as JSON', () => {
    const w = new TextBytes(64);
    w.text('[');
    for (let i = 0; i < 10_000; i++) w.text(i ? ',' : '').text(`{"i":${i},"name":"point ${i % 7 === 0 ? 'ö' : 'o'}"}`);
    w.text(']');
    const list = JSON.parse(w.finish().toString('utf8')) as { i: number; name: string }[];
    expect(list).toHaveLength(10_000);
    expect(list[7]).toEqual({ i: 7, name: 'point ö' });
    expect(list[9_999]).toEqual({ i: 9_999, name: 'point o' });
  });
});

describe('TextBytes.digits', () => {
  it('writes whole numbers as String() does, padded to a width', () => {
    const w = new TextBytes(4);
    const values = [0, 7, 10, 99, 100, 123456, 999999999, 2 ** 53];
    for (const v of values) w.digits(v).text(' ');
    w.digits(5, 6).text(' ').digits(123, 2).text(' ').digits(0, 3);
    expect(w.finish().toString()).toBe(`${values.map(String).join(' ')} 000005 123 000`);
  });
});
