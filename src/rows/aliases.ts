// Column names as finance teams write them (issue 5), by the field they mean. A header is first matched against the
// field names themselves (fieldForColumn), so `First Name` or `date_of_birth` need no alias; these are the other
// common spellings. Matching ignores case, spaces, `_`, `-` and `.`, like field names.

/** Field -> the other names people give its column. Only names that cannot mean another field. */
export const ALIASES: Readonly<Record<string, readonly string[]>> = {
  clientUserId: ['Client ID', 'Customer ID', 'Payer ID', 'User ID', 'External ID'],
  email: ['Email Address', 'E-mail', 'E-mail Address', 'Mail'],
  firstName: ['Given Name', 'Given Names', 'First', 'Forename'],
  lastName: ['Surname', 'Family Name', 'Last'],
  dateOfBirth: ['DOB', 'D.O.B.', 'Birth Date', 'Birthdate', 'Birthday'],
  addressLine1: ['Street', 'Address', 'Street Address', 'Address 1', 'Street 1', 'Address Line'],
  addressLine2: ['Address 2', 'Street 2', 'Apartment', 'Apt/Suite'],
  city: ['Town', 'Town/City', 'City/Town'],
  state: ['Province', 'State/Province', 'Region'],
  // Not `Post Code`: it reads as `postcode` itself, a payer-only name that a bank-details file deliberately does not know.
  postcode: ['Zip', 'Zip Code', 'ZIP/Postal Code', 'Postal Code', 'Postcode/ZIP'],
  country: ['Country Code'],
  nationality: ['Citizenship'],
  phone: ['Phone Number', 'Mobile', 'Mobile Number', 'Mobile Phone', 'Telephone', 'Tel', 'Cell', 'Cell Phone'],
  ssn: ['Social Security Number', 'Social Security No'],
  companyName: ['Company', 'Business Name', 'Organization', 'Organisation'],
  bankName: ['Bank'],
  accountName: ['Account Holder', 'Account Holder Name', 'Name on Account', 'Beneficiary Name'],
  accountNumber: ['Account No', 'Account #', 'Acct Number', 'Acct No', 'Bank Account Number'],
  routingNumber: ['ABA', 'ABA Number', 'ABA Routing Number', 'Routing', 'Routing No', 'Routing #', 'RTN'],
  sortCode: ['Sort'],
  iban: ['IBAN Number'],
  swiftBic: ['BIC', 'SWIFT', 'SWIFT Code', 'BIC Code', 'SWIFT/BIC', 'BIC/SWIFT'],
  currency: ['Currency Code', 'CCY'],
};

const normalize = (name: string): string => name.replace(/[\s_.-]+/g, '').toLowerCase();

/** Normalised alias -> field. */
export const ALIAS_LOOKUP: ReadonlyMap<string, string> = new Map(
  Object.entries(ALIASES).flatMap(([field, names]) => names.map((name): [string, string] => [normalize(name), field])),
);

/**
 * A payer row calls the postal code `postcode` (compliance); a bank row calls it `postalCode` (payment detail).
 * `Zip` means whichever the file has.
 */
export const SAME_FIELD: ReadonlyMap<string, string> = new Map([
  ['postcode', 'postalCode'],
  ['postalCode', 'postcode'],
]);
