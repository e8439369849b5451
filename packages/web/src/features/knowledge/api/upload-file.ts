import { KnowledgeMessages, ZGenerateUploadResponse, type TKnowledgeFileType } from '@persona/contract';
import { knowledgeRequest } from './knowledge-client';

/**
 * A knowledge file upload: POST /knowledge/generate-s3-url {file_type} for a signed form, then the
 * form posted (fields first, the file last) to its url, as with S3. Answers the final_url.
 */
export async function uploadKnowledgeFile(file: File, fileType: TKnowledgeFileType): Promise<string> {
  const presigned = await knowledgeRequest('/knowledge/generate-s3-url', { method: 'POST', body: { file_type: fileType }, schema: ZGenerateUploadResponse });
  // The form allows less than the type's limit when the account's storage quota leaves less.
  if (file.size > presigned.max_bytes) throw new UploadError(KnowledgeMessages.quotaTooSmall(Math.floor((presigned.max_bytes / 1024 / 1024) * 10) / 10), 413);
  const form = new FormData();
  for (const [name, value] of Object.entries(presigned.form)) form.append(name, value);
  form.append('file', file);
  const response = await fetch(presigned.url, { method: 'POST', body: form });
  if (!response.ok) {
    let message = '';
    try {
      const body = (await response.json()) as { errors?: string[] };
      message = body.errors?.[0] ?? '';
    } catch {
      // S3 answers XML
    }
    throw new UploadError(message, response.status);
  }
  return presigned.final_url;
}

export class UploadError extends Error {
  override readonly name = 'UploadError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
