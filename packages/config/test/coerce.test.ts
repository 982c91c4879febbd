import { parseBoolean, parseDuration, parseList, parseRequiredCharacters } from '../src';
import { isUrl, parseInteger, parseNumber } from '../src/coerce';

describe('parseBoolean', () => {
  it.each([
    ['true', true], ['TRUE', true], ['True', true], ['1', true], [' true ', true],
    ['false', false], ['FALSE', false], ['fAlSe', false], ['0', false],
  ])('%j → %j', (input, expected) => expect(parseBoolean(input)).toBe(expected));

  it.each(['yes', 'no', 'on', 't', '', '2', 'truee'])('rejects %j', (input) => {
    expect(parseBoolean(input)).toBeUndefined();
  });
});

describe('parseInteger / parseNumber (strict)', () => {
  it('accepts plain integers only', () => {
    expect(parseInteger('42')).toBe(42);
    expect(parseInteger(' -7 ')).toBe(-7);
    for (const bad of ['', 'abc', '1.5', '1e3', '0x10', '12px', '9007199254740993']) expect(parseInteger(bad)).toBeUndefined();
  });
  it('accepts decimals but not exponents or units', () => {
    expect(parseNumber('1.5')).toBe(1.5);
    expect(parseNumber('.5')).toBe(0.5);
    for (const bad of ['', '1e3', 'Infinity', 'NaN', '1,5', '1s']) expect(parseNumber(bad)).toBeUndefined();
  });
});

describe('parseDuration', () => {
  it.each([
    ['90', 90], ['1.5', 1.5], ['0', 0], ['10s', 10], ['1h30m', 5400], ['500ms', 0.5], ['1.5h', 5400],
    ['2us', 0.000002], ['3µs', 0.000003], ['3μs', 0.000003], ['4ns', 0.000000004], ['1m', 60], ['2h', 7200],
    ['1h1m1s', 3661], ['100ms', 0.1], ['.5s', 0.5], ['-1m', -60],
  ])('%j → %j seconds', (input, expected) => expect(parseDuration(input)).toBe(expected));

  it.each(['', 'abc', '1d', '1h30', 'h', '1 h', '10sec', '1e3s', '1.2.3s'])('rejects %j', (input) => {
    expect(parseDuration(input)).toBeUndefined();
  });
});

describe('parseList', () => {
  it('splits on commas, trims, drops empties', () => {
    expect(parseList(' a, b ,,c ,')).toEqual(['a', 'b', 'c']);
    expect(parseList('')).toEqual([]);
    expect(parseList('https://*.example.com, https://app.com/**')).toEqual(['https://*.example.com', 'https://app.com/**']);
  });
});

describe('parseRequiredCharacters', () => {
  it('splits on ":" and keeps "\\:" as a literal colon', () => {
    expect(parseRequiredCharacters('abc:ABC:0123456789')).toEqual(['abc', 'ABC', '0123456789']);
    expect(parseRequiredCharacters('abc:!@#\\:$')).toEqual(['abc', '!@#:$']);
    expect(parseRequiredCharacters('\\:')).toEqual([':']);
    expect(parseRequiredCharacters('a::b:')).toEqual(['a', 'b']);
    expect(parseRequiredCharacters('a\\b')).toEqual(['a\\b']);
  });
});

describe('isUrl', () => {
  it('checks absolute URLs and schemes', () => {
    expect(isUrl('https://example.com/x')).toBe(true);
    expect(isUrl('http://127.0.0.1:9000')).toBe(true);
    expect(isUrl('example.com')).toBe(false);
    expect(isUrl('ftp://example.com')).toBe(false);
    expect(isUrl('pglite://memory', ['pglite'])).toBe(true);
  });
});
