import { constantTimeEqual, hashOneTimeToken, newRefreshToken, numericOtp, randomToken } from '../src';

describe('randomToken', () => {
  it('is base64url of the requested byte length and differs every time', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(randomToken(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(Array.from({ length: 100 }, () => randomToken())).size).toBe(100);
    expect(() => randomToken(0)).toThrow(RangeError);
  });
});

describe('newRefreshToken', () => {
  it('is GoTrue v1: 12 lowercase base32 characters', () => {
    const tokens = Array.from({ length: 1000 }, () => newRefreshToken());
    for (const token of tokens) expect(token).toMatch(/^[a-z2-7]{12}$/);
    expect(new Set(tokens).size).toBe(1000);
    // Every character of the alphabet shows up across 12 000 draws (P(miss) < 1e-160).
    expect(new Set(tokens.join('')).size).toBe(32);
  });
});

describe('numericOtp', () => {
  it('has exactly the requested number of digits', () => {
    for (const length of [1, 6, 8, 10]) {
      for (let i = 0; i < 50; i++) expect(numericOtp(length)).toMatch(new RegExp(`^[0-9]{${length}}$`));
    }
  });

  it('keeps leading zeros and spreads digits evenly', () => {
    const counts = new Array<number>(10).fill(0);
    let leadingZero = 0;
    for (let i = 0; i < 2000; i++) {
      const otp = numericOtp(6);
      if (otp.startsWith('0')) leadingZero++;
      for (const digit of otp) counts[Number(digit)]!++;
    }
    // 12 000 digits, 1 200 expected each; the bounds are > 10 standard deviations wide, so this
    // only fails for a biased generator, never by chance.
    for (const count of counts) {
      expect(count).toBeGreaterThan(850);
      expect(count).toBeLessThan(1550);
    }
    expect(leadingZero).toBeGreaterThan(100); // ~200 expected
  });

  it('rejects lengths that make no sense', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 65]) expect(() => numericOtp(bad)).toThrow(RangeError);
  });
});

describe('hashOneTimeToken', () => {
  it('is hex SHA-224 of identifier followed by the otp', () => {
    // FIPS 180-2 test vector: SHA-224("abc").
    expect(hashOneTimeToken('ab', 'c')).toBe('23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7');
    expect(hashOneTimeToken('', '')).toBe('d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f');
    // Order matters: identifier first (GoTrue's crypto.GenerateTokenHash(emailOrPhone, otp)).
    expect(hashOneTimeToken('user@example.com', '123456')).toBe(hashOneTimeToken('user@example.com123', '456'));
    expect(hashOneTimeToken('user@example.com', '123456')).not.toBe(hashOneTimeToken('123456', 'user@example.com'));
    expect(hashOneTimeToken('user@example.com', '123456')).toMatch(/^[0-9a-f]{56}$/);
  });
});

describe('constantTimeEqual', () => {
  it('compares by value, false for different lengths without throwing', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('abcd', 'abc')).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
    // Same character count, different byte lengths.
    expect(constantTimeEqual('é', 'e')).toBe(false);
    expect(constantTimeEqual('ü', 'ü')).toBe(true);
  });
});
