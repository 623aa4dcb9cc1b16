import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InboxRunInput } from '../inbox/Inbox.js';
import type { RunContext } from '../pipeline/RunSession.js';
import { approveRoutes } from './approveRoutes.js';
import { actorOf, type Audit } from './Audit.js';
import { editRoutes } from './editRoutes.js';
import type { FourEyes } from './fourEyes.js';
import { layout } from './layout.js';
import { uploadPage, uploadResultPage } from './pages.js';
import { type Upload, Uploads } from './Uploads.js';
import { personOf } from './uploadTable.js';
import type { Session, SignedIn } from './WebAuth.js';

export interface UploadSpec {
  uploads: Uploads;
  /** The largest file taken, in MB (said on the page, and refused past it). */
  limitMb: number;
  /** The run options the inbox runs files with: a file is checked as it will be run. */
  runInput: InboxRunInput;
  context: RunContext;
  /** The service's address, as the confirmation names it. */
  service: string;
  /** A file was put into incoming/: the worker looks at once. */
  onSent: () => void;
  /** Who may send what: four eyes, and the approvals it asks for. */
  fourEyes: FourEyes;
  /** The audit trail: each upload, change, approval and send writes its line. */
  audit: Audit;
}

/** The start page, an upload checked as `validate` checks it, its steps, and its approval and sending into the inbox. */
export async function uploadRoutes(app: FastifyInstance, spec: UploadSpec): Promise<void> {
  await app.register(multipart, { limits: { fileSize: spec.limitMb * 1024 * 1024, files: 1, fields: 4 } });
  const page = (
    reply: FastifyReply,
    status: number,
    title: string,
    body: Parameters<typeof layout>[1],
    session: Session,
  ) =>
    reply
      .code(status)
      .type('text/html')
      .send(layout(title, body, session));

  app.get('/', async (request, reply) => {
    const session = (request as SignedIn).session;
    const { csrf } = session;
    return page(reply, 200, 'Upload', uploadPage(csrf, spec.limitMb), session);
  });

  app.post('/uploads', async (request, reply) => {
    const session = (request as SignedIn).session;
    const { csrf } = session;
    const refused = (status: number, problem: string) =>
      page(reply, status, 'Upload', uploadPage(csrf, spec.limitMb, problem), session);
    const taken = await receive(request, spec);
    if ('problem' in taken) return refused(taken.status, taken.problem);
    const by = personOf(session.user);
    const upload = await spec.uploads.accept(taken.id, taken.path, taken.size, spec.runInput, spec.context, by);
    await spec.audit.record(actorOf(request as SignedIn), 'upload', upload.id, {
      ...{ file: upload.name, size: upload.size },
      rows: upload.check?.rows ?? 0,
    });
    return reply.redirect(`/uploads/${upload.id}`, 303);
  });

  app.get('/uploads/:id', async (request, reply) => {
    const session = (request as SignedIn).session;
    const { csrf } = session;
    const upload = await accountsCompared(spec, (request.params as { id: string }).id);
    if (upload === undefined)
      return reply
        .code(404)
        .type('text/html')
        .send(layout('Not found', uploadPage(csrf, spec.limitMb, 'No such upload.'), session));
    const table = upload.sentAs === undefined ? await spec.uploads.table(upload) : undefined;
    const fixes = await spec.uploads.fixes(upload);
    const gate = await spec.fourEyes.gate(upload, fixes, await spec.uploads.hash(upload, fixes), session.user);
    const body = uploadResultPage(upload, csrf, spec.service, gate, table && { table, fixes });
    return reply.type('text/html').send(layout(upload.name, body, session, table === undefined ? [] : ['fix.js']));
  });
  await editRoutes(app, spec);
  await approveRoutes(app, spec);
}

/**
 * The upload, its bank accounts compared with those its payers have when its stored check has no word of them (an
 * upload kept from before they were, or whose check this serve no longer holds): its page then asks for a second
 * person's approval only where a row needs one. Its send compares them again, whatever the page said.
 */
async function accountsCompared(spec: UploadSpec, id: string): Promise<Upload | undefined> {
  const found = await spec.uploads.get(id);
  const usable = found?.check !== undefined && found.check.unusable === undefined && found.sentAs === undefined;
  if (found === undefined || !usable || found.newAccounts !== undefined) return found;
  const check = { input: spec.runInput, context: spec.context };
  return spec.uploads.serial(id, async () => {
    const now = await spec.uploads.get(id);
    return now === undefined || now.sentAs !== undefined ? now : spec.uploads.current(now, check);
  });
}

/** The uploaded file written whole to its folder, or why it was not taken (no file, a type the tool cannot read, too large). */
async function receive(
  request: FastifyRequest,
  spec: UploadSpec,
): Promise<{ id: string; path: string; size: number } | { status: number; problem: string }> {
  let part: Awaited<ReturnType<FastifyRequest['file']>>;
  try {
    part = await request.file();
  } catch {
    return { status: 400, problem: 'No file came with the form: pick one and try again.' };
  }
  if (part === undefined) return { status: 400, problem: 'No file came with the form: pick one and try again.' };
  const named = Uploads.nameOf(part.filename);
  if ('problem' in named) {
    part.file.resume();
    return { status: 415, problem: named.problem };
  }
  const { id, path } = spec.uploads.create(named.name);
  const tooLarge = {
    status: 413,
    problem: `${named.name} is larger than ${spec.limitMb} MB, the most this page takes.`,
  };
  try {
    await pipeline(part.file, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await spec.uploads.discard(id);
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge;
    return { status: 400, problem: `${named.name} did not arrive whole: try again.` };
  }
  if (part.file.truncated) {
    await spec.uploads.discard(id);
    return tooLarge;
  }
  return { id, path, size: part.file.bytesRead };
}
