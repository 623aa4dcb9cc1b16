import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export const HEADER =
  'clientUserId,email,firstName,lastName,beneficiaryType,dateOfBirth,addressLine1,city,state,postcode,country,nationality,phone,ssn,bankName,accountName,currency,accountNumber,routingNumber,accountType';

/**
 * A valid payer with a US bank account on every row: a first run sends 4 requests for it. `signed`: the team
 * collected its signature (`agreementCompleted` yes), so the run completes the agreement; else the payer signs it.
 */
function row(prefix: string, i: number, signed: boolean): string {
  const id = `${prefix}-${String(i).padStart(7, '0')}`;
  return `${id},${id}@example.com,Ada,Lovelace,individual,1985-12-10,12 Analytical Way,Springfield,IL,62701,US,US,+12175550100,123-45-6789,First Midwest Bank,Ada Lovelace,USD,000123456789,021000021,checking,${signed ? 'yes' : ''}\n`;
}

/** Writes `rows` payer rows to `path`, streaming (a million rows never sit in memory here either). */
export async function writePayersCsv(path: string, rows: number, prefix: string, signed = true): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${HEADER},agreementCompleted\n`);
  let chunk = '';
  for (let i = 1; i <= rows; i += 1) {
    chunk += row(prefix, i, signed);
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}
