// The error shapes requestJson turns into one ApiError, as each service really answers them.
import { errorFromBody } from '../src/browser/api';

describe('errorFromBody', () => {
  test("the DNS API's field problems (Boom shape with errors[])", () => {
    const err = errorFromBody(400, {
      statusCode: 400, error: 'Bad Request', message: 'Invalid zone record: address: address must be a dotted-quad IPv4 address',
      errors: [{ field: 'address', rule: 'ipv4', message: 'address must be a dotted-quad IPv4 address' }],
    });
    expect(err.message).toBe('Invalid zone record: address: address must be a dotted-quad IPv4 address');
    expect(err.problems).toEqual([{ field: 'address', rule: 'ipv4', message: 'address must be a dotted-quad IPv4 address', line: undefined }]);
  });

  test("the DNS API's zone file lines", () => {
    const err = errorFromBody(400, { statusCode: 400, error: 'Bad Request', message: 'The zone file has 1 bad line(s)', errors: [{ line: 4, message: 'A address: bad' }] });
    expect(err.problems).toEqual([{ field: '', rule: undefined, message: 'A address: bad', line: 4 }]);
  });

  test("the DNS API's schema errors name each field through validation.keys", () => {
    const err = errorFromBody(400, {
      statusCode: 400, error: 'Bad Request',
      message: 'Invalid request payload input: "ttl" Too big: expected number to be <=2147483647; "zone" Invalid input; expected string',
      validation: { source: 'payload', keys: ['ttl', 'zone'] },
    });
    expect(err.problems).toEqual([
      { field: 'ttl', message: 'Too big: expected number to be <=2147483647' },
      { field: 'zone', message: 'Invalid input; expected string' },
    ]);
  });

  test("GoTrue's and OAuth's shapes", () => {
    expect(errorFromBody(422, { code: 422, error_code: 'weak_password', msg: 'Password is too weak' })).toMatchObject({ message: 'Password is too weak', code: 'weak_password' });
    expect(errorFromBody(400, { error: 'invalid_grant', error_description: 'The code expired' })).toMatchObject({ message: 'The code expired', code: 'invalid_grant' });
  });
});
