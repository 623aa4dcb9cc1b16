import { z } from 'zod';

// Error bodies of the real service (api-spec.md, known public behaviour): NestJS style, with `message`
// a string or an array of strings, and on a few endpoints `{ message, errors: [{ field, message }] }`.
export const apiErrorBody = z
  .object({
    statusCode: z.number().optional(),
    message: z.union([z.string(), z.array(z.string())]).optional(),
    error: z.string().optional(),
    errors: z.array(z.object({ field: z.string().optional(), message: z.string() }).loose()).optional(),
  })
  .loose();
export type ApiErrorBody = z.infer<typeof apiErrorBody>;

/** The server's own words for a failure, whichever of the known shapes it used. */
export function serverMessage(body: unknown): string | undefined {
  const parsed = apiErrorBody.safeParse(body);
  if (!parsed.success) return typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 300) : undefined;
  const { message, errors } = parsed.data;
  if (errors && errors.length > 0) {
    return errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ');
  }
  if (Array.isArray(message)) return message.join('; ');
  return message;
}
