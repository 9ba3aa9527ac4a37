import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CUSTOMER_CREATE_FIELDS,
  CUSTOMER_FIELDS,
  DOCUMENT_ID_TYPES,
  ID_TYPES,
  IDENTITY_FIELDS,
  VERIFICATION_REQUIRED_FIELDS,
  changedIdentityFields,
  missingVerificationFields,
  parseCustomerCreate,
  parseCustomerUpdate,
} from '../../src/contract/index.js';

const TODAY = new Date('2025-06-15T12:00:00Z');
const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const individual = (): Record<string, unknown> => ({
  first_name: 'Ada',
  last_name: 'Obi',
  email: 'ada.obi@example.com',
  phone_number: '8012345678',
  dial_code: '+234',
  date_of_birth: '1990-05-17',
  id_type: 'bvn',
  id_number: '22212345678',
  line1: '1 Marina',
  city: 'Lagos',
  state: 'Lagos',
  postal_code: '101001',
  country: 'nga',
  occupation: 'software_engineer',
  employment_status: 'employed',
  account_purpose: 'personal spending',
  annual_salary: '5000000',
  expected_monthly_volume: '200000',
  terms_of_service_accepted: true,
});
const business = (): Record<string, unknown> => ({
  ...individual(),
  customer_type: 'business',
  business_name: 'Obi Trading Ltd',
  registration_number: 'RC-123456',
  id_type: 'passport',
  id_number: 'A01234567',
  id_front_image: IMAGE,
  country: 'GHA',
});

function createErrors(patch: Record<string, unknown>, base = individual()) {
  const result = parseCustomerCreate({ ...base, ...patch }, TODAY);
  if (result.ok) throw new Error(`expected a refusal for ${JSON.stringify(patch).slice(0, 200)}`);
  return result.errors;
}
function without(field: string, base = individual()) {
  const copy = { ...base };
  delete copy[field];
  return copy;
}

describe('parseCustomerCreate: accepted bodies', () => {
  it('accepts a minimal individual, defaults customer_type, uppercases country, drops unknown keys', () => {
    const result = parseCustomerCreate({ ...individual(), nickname: 'ada', status: 'disabled' }, TODAY);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.customer_type).toBe('individual');
    expect(result.value.country).toBe('NGA');
    expect(result.value).not.toHaveProperty('nickname');
    expect(result.value).not.toHaveProperty('status');
    // Keys follow the spec's order, so serialization is deterministic.
    const order = Object.keys(result.value).map((k) => CUSTOMER_FIELDS.indexOf(k as never));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('accepts a business with the natural person behind it and a document', () => {
    const result = parseCustomerCreate(business(), TODAY);
    expect(result).toMatchObject({
      ok: true,
      value: { customer_type: 'business', business_name: 'Obi Trading Ltd', id_front_image: IMAGE },
    });
  });

  it('accepts place_of_birth, a data-URL image and every document id type', () => {
    for (const id_type of DOCUMENT_ID_TYPES) {
      const body = {
        ...individual(),
        country: 'GHA',
        id_type,
        id_front_image: `data:image/jpeg;base64,${IMAGE}`,
        place_of_birth: 'Accra',
      };
      expect(parseCustomerCreate(body, TODAY).ok).toBe(true);
    }
  });

  it('accepts nin like bvn and an image exactly at the length limit', () => {
    expect(parseCustomerCreate({ ...individual(), id_type: 'nin' }, TODAY).ok).toBe(true);
    const body = { ...individual(), id_type: 'passport', id_front_image: 'A'.repeat(4_200_000) };
    expect(parseCustomerCreate(body, TODAY).ok).toBe(true);
  });
});

describe('parseCustomerCreate: every required field', () => {
  const requiredFields = CUSTOMER_CREATE_FIELDS.filter(
    (f) =>
      ![
        'customer_type',
        'place_of_birth',
        'business_name',
        'registration_number',
        'id_front_image',
        'terms_of_service_accepted',
      ].includes(f),
  );
  it.each(requiredFields)('%s is required', (field) => {
    expect(createErrors({}, without(field))).toEqual({ [field]: [`The ${field.replace(/_/g, ' ')} is required.`] });
  });
  it('terms_of_service_accepted is required', () => {
    expect(createErrors({}, without('terms_of_service_accepted'))).toEqual({
      terms_of_service_accepted: ['The terms of service accepted is required and must be true.'],
    });
  });
  it('an empty or blank string counts as missing', () => {
    expect(createErrors({ first_name: '', city: '   ' })).toEqual({
      first_name: ['The first name must not be empty.'],
      city: ['The city must not be empty.'],
    });
  });
});

describe('parseCustomerCreate: per-field rules', () => {
  it.each([
    ['business_name', 150],
    ['registration_number', 64],
    ['first_name', 100],
    ['last_name', 100],
    ['id_number', 64],
    ['line1', 120],
    ['city', 120],
    ['state', 120],
    ['place_of_birth', 120],
    ['postal_code', 20],
    ['account_purpose', 100],
    ['employment_status', 50],
  ] as const)('%s is at most %i characters', (field, max) => {
    const base = field === 'business_name' || field === 'registration_number' ? business() : individual();
    expect(parseCustomerCreate({ ...base, [field]: 'x'.repeat(max) }, TODAY).ok).toBe(true);
    expect(createErrors({ [field]: 'x'.repeat(max + 1) }, base)).toEqual({
      [field]: [`The ${field.replace(/_/g, ' ')} must not be longer than ${max} characters.`],
    });
  });

  it('occupation: at most 100, lowercase with underscores', () => {
    expect(parseCustomerCreate({ ...individual(), occupation: 'a'.repeat(100) }, TODAY).ok).toBe(true);
    for (const bad of ['Software_engineer', 'software engineer', '_engineer', 'dev1', 'ingénieur']) {
      expect(createErrors({ occupation: bad }).occupation).toEqual([
        'The occupation must be lowercase letters and underscores, starting with a letter (for example software_engineer).',
      ]);
    }
    // Both problems of one value are reported together.
    expect(createErrors({ occupation: 'A'.repeat(101) }).occupation).toHaveLength(2);
  });

  it('email must be valid and at most 254 characters', () => {
    for (const bad of ['ada', 'ada@', '@example.com', 'ada@example', 'ada obi@example.com']) {
      expect(createErrors({ email: bad })).toEqual({ email: ['The email must be a valid e-mail address.'] });
    }
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`;
    expect(long.length).toBe(255);
    expect(createErrors({ email: long })).toEqual({ email: ['The email must not be longer than 254 characters.'] });
  });

  it('phone_number is 4 to 15 digits without the country code', () => {
    for (const ok of ['1234', '123456789012345'])
      expect(parseCustomerCreate({ ...individual(), phone_number: ok }, TODAY).ok).toBe(true);
    for (const bad of ['123', '1234567890123456', '+2348012345678', '801-234-5678', '٨٠١٢٣٤']) {
      expect(createErrors({ phone_number: bad })).toEqual({
        phone_number: ['The phone number must contain only digits, 4 to 15 of them, without the country code.'],
      });
    }
  });

  it('dial_code is a plus sign and 1 to 4 digits', () => {
    for (const ok of ['+1', '+1868'])
      expect(parseCustomerCreate({ ...individual(), dial_code: ok }, TODAY).ok).toBe(true);
    for (const bad of ['234', '+', '+12345', '+23a']) {
      expect(createErrors({ dial_code: bad })).toEqual({
        dial_code: ['The dial code must be a plus sign followed by 1 to 4 digits (for example +234).'],
      });
    }
  });

  it.each(['annual_salary', 'expected_monthly_volume'])('%s is 1 to 15 digits, whole units', (field) => {
    expect(parseCustomerCreate({ ...individual(), [field]: '0' }, TODAY).ok).toBe(true);
    for (const bad of ['1234567890123456', '5000.00', '-5', '5,000']) {
      expect(createErrors({ [field]: bad })).toEqual({
        [field]: [
          `The ${field.replace(/_/g, ' ')} must contain only digits, 1 to 15 of them (whole units, not minor units).`,
        ],
      });
    }
  });

  it('date_of_birth must be a real calendar date in YYYY-MM-DD form', () => {
    for (const bad of [
      '1990-02-30',
      '1990-13-01',
      '1990-5-17',
      '17/05/1990',
      '1990-05-17T00:00:00Z',
      '2001-02-29',
      '0000-01-01',
    ]) {
      expect(createErrors({ date_of_birth: bad })).toEqual({
        date_of_birth: ['The date of birth must be a real date in the form YYYY-MM-DD.'],
      });
    }
    expect(parseCustomerCreate({ ...individual(), date_of_birth: '2000-02-29' }, TODAY).ok).toBe(true);
  });

  it('the cardholder must be at least 18 years old; an 18th birthday today counts', () => {
    expect(parseCustomerCreate({ ...individual(), date_of_birth: '2007-06-15' }, TODAY).ok).toBe(true);
    expect(createErrors({ date_of_birth: '2007-06-16' })).toEqual({
      date_of_birth: ['The cardholder must be at least 18 years old.'],
    });
    expect(createErrors({ date_of_birth: '2015-01-01' })).toEqual({
      date_of_birth: ['The cardholder must be at least 18 years old.'],
    });
  });

  it('someone born on 29 February turns 18 on 1 March in a non-leap year', () => {
    const body = { ...individual(), date_of_birth: '2004-02-29' };
    expect(parseCustomerCreate(body, new Date('2022-02-28T23:00:00Z')).ok).toBe(false);
    expect(parseCustomerCreate(body, new Date('2022-03-01T00:00:00Z')).ok).toBe(true);
  });

  it('date_of_birth must not be in the future', () => {
    expect(createErrors({ date_of_birth: '2025-06-16' })).toEqual({
      date_of_birth: ['The date of birth must not be in the future.'],
    });
  });

  it('id_type must be one of the eight', () => {
    expect(ID_TYPES).toHaveLength(8);
    for (const bad of ['BVN', 'ssn', 'drivers-license']) {
      expect(createErrors({ id_type: bad })).toEqual({
        id_type: [
          'The id type must be one of bvn, nin, passport, drivers_license, national_id, vnin, voters_card, ghana_card.',
        ],
      });
    }
  });

  it('customer_type must be individual or business', () => {
    expect(createErrors({ customer_type: 'company' })).toEqual({
      customer_type: ['The customer type must be individual or business.'],
    });
  });

  it('country is exactly 3 letters, case-insensitive', () => {
    const result = parseCustomerCreate({ ...business(), country: 'gHa' }, TODAY);
    expect(result.ok && result.value.country).toBe('GHA');
    for (const bad of ['GH', 'GHAN', 'G1A', 'Ghana']) {
      expect(createErrors({ country: bad }, business())).toEqual({
        country: ['The country must be exactly 3 letters (an ISO 3166-1 alpha-3 code such as NGA).'],
      });
    }
  });

  it('terms_of_service_accepted must be the boolean true', () => {
    for (const bad of [false, 'true', 1, null]) {
      expect(createErrors({ terms_of_service_accepted: bad })).toEqual({
        terms_of_service_accepted: ['The terms of service accepted must be true.'],
      });
    }
  });

  it('id_front_image must look like base64 and be at most 4,200,000 characters', () => {
    expect(createErrors({ id_front_image: 'not base64!' }, business())).toEqual({
      id_front_image: ['The id front image must be a base64-encoded image.'],
    });
    expect(createErrors({ id_front_image: 'A'.repeat(4_200_001) }, business())).toEqual({
      id_front_image: ['The id front image must not be longer than 4200000 characters.'],
    });
  });

  it('a wrong JSON type gives a message, not a throw', () => {
    expect(
      createErrors({
        first_name: 42,
        phone_number: 8012345678,
        email: null,
        line1: ['1 Marina'],
        city: { name: 'Lagos' },
        date_of_birth: true,
      }),
    ).toEqual({
      first_name: ['The first name must be a string.'],
      email: ['The email must be a string.'],
      phone_number: ['The phone number must be a string.'],
      date_of_birth: ['The date of birth must be a string.'],
      line1: ['The line1 must be a string.'],
      city: ['The city must be a string.'],
    });
  });

  it.each([null, [], [individual()], 'body', 42, true])('a non-object body (%j) is refused as a whole', (body) => {
    expect(parseCustomerCreate(body, TODAY)).toEqual({
      ok: false,
      errors: { body: ['The request body must be a JSON object.'] },
    });
  });

  it('reports every problem at once, keyed in the spec order', () => {
    const errors = createErrors(
      { email: 'x', phone_number: '12', country: 'NG', terms_of_service_accepted: false },
      without('last_name'),
    );
    expect(Object.keys(errors)).toEqual(['last_name', 'email', 'phone_number', 'country', 'terms_of_service_accepted']);
  });
});

describe('parseCustomerCreate: conditional rules', () => {
  it('a document id type requires id_front_image', () => {
    for (const id_type of DOCUMENT_ID_TYPES) {
      expect(createErrors({ id_type, country: 'GHA' })).toEqual({
        id_front_image: ['The id front image is required for document id types.'],
      });
    }
  });

  it('bvn and nin must not be sent with id_front_image', () => {
    for (const id_type of ['bvn', 'nin']) {
      expect(createErrors({ id_type, id_front_image: IMAGE })).toEqual({
        id_front_image: ['The id front image must not be sent with bvn or nin.'],
      });
      // The format of an image that must not be there is beside the point.
      expect(createErrors({ id_type, id_front_image: '???' })).toEqual({
        id_front_image: ['The id front image must not be sent with bvn or nin.'],
      });
    }
  });

  it('bvn and nin require country NGA', () => {
    for (const id_type of ['bvn', 'nin']) {
      expect(createErrors({ id_type, country: 'GHA' })).toEqual({
        country: ['The country must be NGA when id type is bvn or nin.'],
      });
    }
  });

  it('a business needs business_name and registration_number', () => {
    expect(createErrors({ customer_type: 'business' })).toEqual({
      business_name: ['The business name is required for business customers.'],
      registration_number: ['The registration number is required for business customers.'],
    });
  });

  it('a business still needs the natural person: names, date of birth and an identity document', () => {
    let body = business();
    for (const f of ['first_name', 'last_name', 'date_of_birth', 'id_type', 'id_number']) body = without(f, body);
    expect(Object.keys(createErrors({}, body))).toEqual([
      'first_name',
      'last_name',
      'date_of_birth',
      'id_type',
      'id_number',
    ]);
    expect(createErrors({}, without('id_front_image', business()))).toEqual({
      id_front_image: ['The id front image is required for document id types.'],
    });
  });
});

describe('parseCustomerUpdate', () => {
  const stored = { ...individual(), country: 'NGA', customer_type: 'individual', status: 'active' };

  it('accepts any subset, an empty body included, with the same per-field rules', () => {
    expect(parseCustomerUpdate({}, TODAY)).toEqual({ ok: true, value: {} });
    expect(parseCustomerUpdate({ city: 'Abuja', country: 'nga', extra: 1 }, TODAY)).toEqual({
      ok: true,
      value: { city: 'Abuja', country: 'NGA' },
    });
    const result = parseCustomerUpdate({ email: 'nope', date_of_birth: '2010-01-01', phone_number: 5 }, TODAY);
    expect(result).toEqual({
      ok: false,
      errors: {
        email: ['The email must be a valid e-mail address.'],
        phone_number: ['The phone number must be a string.'],
        date_of_birth: ['The cardholder must be at least 18 years old.'],
      },
    });
    expect(parseCustomerUpdate({ terms_of_service_accepted: false }, TODAY).ok).toBe(false);
    expect(parseCustomerUpdate({ first_name: '' }, TODAY)).toEqual({
      ok: false,
      errors: { first_name: ['The first name must not be empty.'] },
    });
  });

  it('accepts status active or disabled and nothing else', () => {
    expect(parseCustomerUpdate({ status: 'disabled' }, TODAY)).toEqual({ ok: true, value: { status: 'disabled' } });
    expect(parseCustomerUpdate({ status: 'active' }, TODAY)).toEqual({ ok: true, value: { status: 'active' } });
    expect(parseCustomerUpdate({ status: 'blocked' }, TODAY)).toEqual({
      ok: false,
      errors: { status: ['The status must be active or disabled.'] },
    });
  });

  it('refuses switching to a document id type without an image on file or in the update', () => {
    expect(parseCustomerUpdate({ id_type: 'passport' }, TODAY, stored)).toEqual({
      ok: false,
      errors: { id_front_image: ['The id front image is required for document id types.'] },
    });
    expect(parseCustomerUpdate({ id_type: 'passport', id_front_image: IMAGE }, TODAY, stored).ok).toBe(true);
    expect(parseCustomerUpdate({ id_type: 'passport' }, TODAY, { ...stored, id_front_image: IMAGE }).ok).toBe(true);
  });

  it('refuses switching to bvn while the stored country is not NGA, or an image sent for a stored bvn', () => {
    const ghanaian = { ...stored, id_type: 'passport', country: 'GHA', id_front_image: IMAGE };
    expect(parseCustomerUpdate({ id_type: 'bvn' }, TODAY, ghanaian)).toEqual({
      ok: false,
      errors: { country: ['The country must be NGA when id type is bvn or nin.'] },
    });
    // The image on file is not "sent": switching to bvn together with the country is fine.
    expect(parseCustomerUpdate({ id_type: 'bvn', country: 'NGA' }, TODAY, ghanaian).ok).toBe(true);
    expect(parseCustomerUpdate({ country: 'GHA' }, TODAY, stored).ok).toBe(false);
    expect(parseCustomerUpdate({ id_front_image: IMAGE }, TODAY, stored)).toEqual({
      ok: false,
      errors: { id_front_image: ['The id front image must not be sent with bvn or nin.'] },
    });
  });

  it('does not refuse an unrelated change because of the stored record', () => {
    // A document customer whose image was deleted after verification can still change the email.
    const settled = { ...stored, id_type: 'passport', country: 'GHA' };
    expect(parseCustomerUpdate({ email: 'new@example.com' }, TODAY, settled).ok).toBe(true);
  });

  it('checks switching to business against the stored record', () => {
    expect(parseCustomerUpdate({ customer_type: 'business' }, TODAY, stored)).toEqual({
      ok: false,
      errors: {
        business_name: ['The business name is required for business customers.'],
        registration_number: ['The registration number is required for business customers.'],
      },
    });
    expect(
      parseCustomerUpdate(
        { customer_type: 'business', business_name: 'Obi Ltd', registration_number: 'RC1' },
        TODAY,
        stored,
      ).ok,
    ).toBe(true);
  });

  it('without the stored record, checks only what the body itself shows', () => {
    expect(parseCustomerUpdate({ id_type: 'passport' }, TODAY).ok).toBe(true);
    expect(parseCustomerUpdate({ customer_type: 'business' }, TODAY).ok).toBe(true);
    expect(parseCustomerUpdate({ id_type: 'bvn', country: 'GHA' }, TODAY).ok).toBe(false);
    expect(parseCustomerUpdate({ id_type: 'nin', id_front_image: IMAGE }, TODAY).ok).toBe(false);
    expect(parseCustomerUpdate({ id_type: 'passport', id_front_image: IMAGE }, TODAY).ok).toBe(true);
  });

  it('refuses a non-object body', () => {
    expect(parseCustomerUpdate([1], TODAY, stored)).toEqual({
      ok: false,
      errors: { body: ['The request body must be a JSON object.'] },
    });
  });
});

describe('field lists', () => {
  it('CUSTOMER_FIELDS is the spec table in order, status last', () => {
    expect(CUSTOMER_FIELDS).toHaveLength(25);
    expect(CUSTOMER_FIELDS.slice(0, 4)).toEqual([
      'customer_type',
      'business_name',
      'registration_number',
      'first_name',
    ]);
    expect(CUSTOMER_FIELDS.slice(-3)).toEqual(['place_of_birth', 'terms_of_service_accepted', 'status']);
    expect(CUSTOMER_CREATE_FIELDS).toEqual(CUSTOMER_FIELDS.slice(0, -1));
  });

  it('IDENTITY_FIELDS covers identity and profile, not contact details or status', () => {
    for (const f of [
      'first_name',
      'date_of_birth',
      'id_number',
      'id_front_image',
      'line1',
      'country',
      'annual_salary',
      'place_of_birth',
    ]) {
      expect(IDENTITY_FIELDS).toContain(f);
    }
    for (const f of ['email', 'phone_number', 'dial_code', 'status', 'terms_of_service_accepted'])
      expect(IDENTITY_FIELDS).not.toContain(f);
  });

  it('missingVerificationFields names what POST /kyc lacks', () => {
    const full = { ...individual(), country: 'NGA' };
    expect(missingVerificationFields(full)).toEqual([]);
    const noProfile = { ...full, terms_of_service_accepted: false };
    for (const f of ['occupation', 'employment_status', 'account_purpose', 'annual_salary', 'expected_monthly_volume'])
      delete (noProfile as Record<string, unknown>)[f];
    expect(missingVerificationFields(noProfile)).toEqual([
      'occupation',
      'employment_status',
      'account_purpose',
      'annual_salary',
      'expected_monthly_volume',
      'terms_of_service_accepted',
    ]);
    expect(missingVerificationFields({ ...full, customer_type: 'business', id_type: 'passport' })).toEqual([
      'business_name',
      'registration_number',
      'id_front_image',
    ]);
    expect(missingVerificationFields({})).toEqual([...VERIFICATION_REQUIRED_FIELDS]);
  });

  it('changedIdentityFields ignores contact fields, unchanged values and country case', () => {
    const current = { ...individual(), country: 'NGA' };
    expect(changedIdentityFields(current, { email: 'x@example.com', country: 'nga', first_name: 'Ada' })).toEqual([]);
    expect(changedIdentityFields(current, { last_name: 'Okafor', occupation: 'teacher', status: 'disabled' })).toEqual([
      'last_name',
      'occupation',
    ]);
  });
});

describe('never throws', () => {
  const fieldValue = fc.oneof(
    fc.jsonValue(),
    fc.string(),
    fc.constantFrom('', 'bvn', 'passport', 'business', 'NGA', '1990-01-01', IMAGE, true),
  );
  const bodyLike = fc.dictionary(fc.constantFrom(...CUSTOMER_FIELDS, '__proto__', 'constructor', 'extra'), fieldValue);
  const shapeOk = (r: ReturnType<typeof parseCustomerCreate>) => {
    if (r.ok) return typeof r.value === 'object';
    const lists = Object.values(r.errors);
    return (
      lists.length > 0 &&
      lists.every((l) => l.length > 0 && l.every((m) => m.startsWith('The ') && !m.includes('could not be read')))
    );
  };

  it('on arbitrary JSON values (create and update)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.option(fc.jsonValue()), (body, current) => {
        expect(shapeOk(parseCustomerCreate(body, TODAY))).toBe(true);
        expect(shapeOk(parseCustomerUpdate(body, TODAY, (current ?? undefined) as object | undefined) as never)).toBe(
          true,
        );
      }),
      { numRuns: 1500 },
    );
  });

  it('on objects made of customer keys with arbitrary values, JSON round-tripped', () => {
    fc.assert(
      fc.property(bodyLike, bodyLike, (body, current) => {
        const parsed = JSON.parse(JSON.stringify(body)) as unknown;
        expect(shapeOk(parseCustomerCreate(parsed, TODAY))).toBe(true);
        expect(shapeOk(parseCustomerCreate({ ...individual(), ...(parsed as object) }, TODAY))).toBe(true);
        expect(shapeOk(parseCustomerUpdate(parsed, TODAY, current) as never)).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('on an invalid clock and exotic objects', () => {
    expect(parseCustomerCreate(individual(), new Date(Number.NaN)).ok).toBe(true);
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('boom');
        },
        has: () => {
          throw new Error('boom');
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('boom');
        },
      },
    );
    expect(parseCustomerCreate(hostile, TODAY)).toEqual({
      ok: false,
      errors: { body: ['The request body could not be read.'] },
    });
  });
});
