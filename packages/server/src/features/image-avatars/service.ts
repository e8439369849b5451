import {
  AvatarMessages,
  ImageAvatarMessages,
  ZPhotoLandmarks,
  type TPhotoLandmarks,
  hasImageAvatars,
  ZImageAvatarRequestInput,
  type TCustomAvatar,
  type TImageAvatarRequest,
} from '@persona/contract';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../lib/app-error.js';
import type { Mailer } from '../../plugins/mail.js';
import { renderMailHtml } from '../../plugins/mail.js';
import type { Storage, StoredFile } from '../../plugins/storage.js';
import type { createImageAvatarsRepository } from './repository.js';

type Repo = ReturnType<typeof createImageAvatarsRepository>;
type RequestRow = NonNullable<Awaited<ReturnType<Repo['findRequest']>>>;

/**
 * Image avatars (PRO and ENTERPRISE): the customer sends a face photo with the permission
 * statement; an administrator makes the avatar and attaches it, and it appears in that
 * customer's IMAGE AVATARS.
 */
/** The face the admin's browser found in the attached photo (a talking photo), checked. */
function parseLandmarks(text: string): TPhotoLandmarks {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw AppError.badRequest(ImageAvatarMessages.landmarksInvalid);
  }
  const parsed = ZPhotoLandmarks.safeParse(value);
  if (!parsed.success) throw AppError.badRequest(ImageAvatarMessages.landmarksInvalid);
  return parsed.data;
}

export function createImageAvatarService(deps: { repo: Repo; storage: Storage; mailer: Mailer; log: FastifyBaseLogger; publicUrl: string }) {
  const { repo, storage, mailer, log } = deps;
  const send = (message: Parameters<Mailer['send']>[0]) =>
    mailer.send(message).catch((err: unknown) => log.error({ err, to: message.to }, 'mail delivery failed'));

  const present = (row: RequestRow): TImageAvatarRequest => ({
    id: row.request.id,
    userId: row.request.userId,
    email: row.email,
    userName: `${row.firstName} ${row.lastName}`.trim() || row.email,
    name: row.request.name,
    notes: row.request.notes,
    // The face photo is private: a signed URL, handed only to its owner and to administrators.
    photoUrl: storage.privateUrl(row.request.photoKey),
    status: row.request.status,
    reason: row.request.reason,
    created: row.request.createdAt.toISOString(),
    decided: row.request.decidedAt?.toISOString() ?? null,
  });

  return {
    async request(userId: number, raw: unknown, photo: StoredFile | undefined): Promise<TImageAvatarRequest> {
      try {
        const plan = await repo.userPlan(userId);
        if (!hasImageAvatars(plan)) throw new AppError(403, AvatarMessages.higherPlanRequired);
        const parsed = ZImageAvatarRequestInput.safeParse(raw);
        if (!parsed.success) throw AppError.badRequest([...new Set(parsed.error.issues.map((i) => i.message))]);
        if (!photo) throw AppError.badRequest(ImageAvatarMessages.photoRequired);
        const row = await repo.insertRequest({ userId, name: parsed.data.name, notes: parsed.data.notes, photoKey: photo.key });
        const request = present((await repo.findRequest(row.id))!);
        const link = `${deps.publicUrl}/react/requests?imageRequest=${request.id}`;
        const paragraphs = [`${request.userName} <${request.email}> asks for an image avatar "${request.name}".`, request.notes ? `Notes: ${request.notes}` : 'No notes.', 'The photo and the permission statement are on the request.'];
        for (const to of await repo.adminEmails()) {
          send({ to, subject: `Image avatar request: ${request.email}`, text: `${paragraphs.join('\n\n')}\n\nOpen the request: ${link}\n`, html: renderMailHtml({ heading: 'Image avatar request', paragraphs, action: { label: 'Open the request', url: link } }) });
        }
        return request;
      } catch (err) {
        if (photo) await storage.delete(photo.key).catch(() => {});
        throw err;
      }
    },

    async list(status?: 'PENDING' | 'COMPLETED' | 'DECLINED', userId?: number) {
      return (await repo.listRequests(status, userId)).map(present);
    },

    /** The admin attaches the finished avatar (an image of it) or declines the request. */
    async decide(adminId: number, input: { requestId: number; decision: 'complete' | 'decline'; name?: string; reason?: string; landmarks?: string }, thumbnail: StoredFile | undefined) {
      try {
        const landmarks = input.landmarks ? parseLandmarks(input.landmarks) : undefined;
        const row = await repo.findRequest(input.requestId);
        if (!row) throw AppError.notFound();
        if (row.request.status !== 'PENDING') throw AppError.conflict(ImageAvatarMessages.alreadyDecided);
        if (input.decision === 'complete' && !thumbnail) throw AppError.badRequest(ImageAvatarMessages.thumbnailRequired);
        if (!(await repo.decide(row.request.id, input.decision === 'complete' ? 'COMPLETED' : 'DECLINED', adminId, input.reason || null))) {
          throw AppError.conflict(ImageAvatarMessages.alreadyDecided);
        }
        const name = input.name || row.request.name;
        if (input.decision === 'complete') {
          const custom = await repo.insertCustomAvatar({ userId: row.request.userId, requestId: row.request.id, name, dhType: 1, thumbnailKey: thumbnail!.key });
          await repo.setCustomConfig(custom.id, { ParentConfig: '/catalog/avatar-configs/base-image.json', Avatar: { model: `custom-${custom.id}`, image: storage.url(thumbnail!.key), ...(landmarks ? { landmarks } : {}) } });
        } else if (thumbnail) {
          await storage.delete(thumbnail.key).catch(() => {});
        }
        const accountLink = `${deps.publicUrl}/react/avatars`;
        const paragraphs =
          input.decision === 'complete'
            ? [`Your image avatar "${name}" is ready.`, 'Open the Avatar Creator: it is in IMAGE AVATARS, ready to be chosen for an avatar.']
            : [`Your image avatar request "${row.request.name}" could not be completed.`, ...(input.reason ? [`Reason: ${input.reason}`] : [])];
        send({ to: row.email, subject: input.decision === 'complete' ? 'Your image avatar is ready' : 'Your image avatar request', text: `${paragraphs.join('\n\n')}\n\n${accountLink}\n`, html: renderMailHtml({ heading: input.decision === 'complete' ? 'Your image avatar is ready' : 'Image avatar request', paragraphs, action: { label: 'Open the Avatar Creator', url: accountLink } }) });
        return present((await repo.findRequest(row.request.id))!);
      } catch (err) {
        // Refused: the uploaded image is not kept.
        if (thumbnail) await storage.delete(thumbnail.key).catch(() => {});
        throw err;
      }
    },

    async customAvatars(userId: number): Promise<TCustomAvatar[]> {
      return (await repo.customAvatarsOf(userId)).map((c) => ({
        id: `custom-${c.id}`,
        name: c.name,
        dhType: c.dhType,
        thumbnail: storage.url(c.thumbnailKey),
        avatarConfigURL: `/config/custom/${c.id}.json`,
      }));
    },

    async customConfig(id: number) {
      const row = await repo.customAvatar(id);
      if (!row) throw AppError.notFound();
      return row.config;
    },
  };
}
