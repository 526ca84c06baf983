import { D2Error, assertIsError, isMalformed, malformed } from '../../../lib/d2/errors';

describe('D2Error', () => {
  it('carries kind, name and an optional cause, and is an Error', () => {
    // Prepare
    const cause = new Error('root');

    // Act
    const error = new D2Error('noHosts', 'no host for service s', { cause });

    // Assess
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'D2Error', kind: 'noHosts', message: 'no host for service s', cause });
    expect(error.field).toBeUndefined();
    expect(error.entity).toBeUndefined();
  });

  it('leaves cause unset when none is given', () => {
    // Act
    const error = new D2Error('closed', 'closed');

    // Assess
    expect(Object.hasOwn(error, 'cause')).toBe(false);
  });

  it('builds malformed errors that name the entity and the field', () => {
    // Act
    const error = malformed('uri', 'partitionDesc["http://h:1"]["a"]', 'is not a partition id');

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'uri', field: 'partitionDesc["http://h:1"]["a"]' });
    expect(error.message).toBe('malformed uri properties: partitionDesc["http://h:1"]["a"] is not a partition id');
    expect(isMalformed(error)).toBe(true);
  });

  it('calls the whole document "document" in the message when the field is empty', () => {
    // Act
    const error = malformed('cluster', '', 'is not valid JSON');

    // Assess
    expect(error.message).toBe('malformed cluster properties: document is not valid JSON');
  });

  it.each([
    ['a D2Error of another kind', new D2Error('unknownService', 's')],
    ['a plain Error', new Error('x')],
    ['a string', 'malformed'],
  ])('isMalformed is false for %s', (_name, value) => {
    // Act + Assess
    expect(isMalformed(value)).toBe(false);
  });
});

describe('assertIsError', () => {
  it('accepts any Error', () => {
    // Act + Assess
    expect(() => assertIsError(new TypeError('x'))).not.toThrow();
  });

  it('re-throws a value that is not an Error, untouched', () => {
    // Prepare
    const thrown = { code: 42 };

    // Act
    let caught: unknown;
    try {
      assertIsError(thrown);
    } catch (e) {
      caught = e;
    }

    // Assess
    expect(caught).toBe(thrown);
  });
});
