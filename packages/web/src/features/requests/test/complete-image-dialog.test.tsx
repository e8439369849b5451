import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ImageAvatarMessages, type TImageAvatarRequest } from '@persona/contract';
import { CompleteImageDialog } from '../components/complete-image-dialog';
import { findFaceLandmarks, toPhotoLandmarks } from '../lib/face-landmarks';

vi.mock('../lib/face-landmarks', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  findFaceLandmarks: vi.fn(),
}));

const request = { id: 4, name: 'Dr. Smith', userName: 'Pat Doe', email: 'pat@example.com', status: 'PENDING' } as TImageAvatarRequest;
const grid = Array.from({ length: 68 }, (_, i) => ({ x: 100 + i, y: 200 + i }));
const found = toPhotoLandmarks(grid, 640, 800)!;

function open() {
  const onComplete = vi.fn();
  render(<CompleteImageDialog request={request} isBusy={false} error={null} onComplete={onComplete} onClose={() => undefined} />);
  return onComplete;
}

const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'smith.png', { type: 'image/png' });

describe('completing an image avatar: the talking photo face', () => {
  it('finds the face once when the image is chosen and sends its landmarks', async () => {
    vi.mocked(findFaceLandmarks).mockResolvedValueOnce(found);
    const user = userEvent.setup();
    const onComplete = open();
    await user.upload(screen.getByLabelText('Avatar image'), png());
    expect(await screen.findByText(ImageAvatarMessages.faceFound)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Complete' }));
    expect(onComplete).toHaveBeenCalledWith({ name: 'Dr. Smith', thumbnail: expect.any(File), landmarks: found });
  });

  it('says when no face is found, and completes without landmarks', async () => {
    vi.mocked(findFaceLandmarks).mockResolvedValueOnce(null);
    const user = userEvent.setup();
    const onComplete = open();
    await user.upload(screen.getByLabelText('Avatar image'), png());
    expect(await screen.findByText(ImageAvatarMessages.faceNotFound)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Complete' }));
    expect(onComplete).toHaveBeenCalledWith({ name: 'Dr. Smith', thumbnail: expect.any(File) });
  });

  it('says when the search itself failed (no WebGL, model not loaded)', async () => {
    vi.mocked(findFaceLandmarks).mockRejectedValueOnce(new Error('no backend'));
    const user = userEvent.setup();
    open();
    await user.upload(screen.getByLabelText('Avatar image'), png());
    expect(await screen.findByText(ImageAvatarMessages.faceSearchFailed)).toBeInTheDocument();
  });
});

describe('toPhotoLandmarks', () => {
  it("maps dlib's 68 points to jaw, eyes and lips, clamped to the image", () => {
    const points = grid.map((p, i) => (i === 0 ? { x: -5, y: 900 } : p));
    const lm = toPhotoLandmarks(points, 640, 800)!;
    expect(lm.jaw).toHaveLength(17);
    expect(lm.jaw[0]).toEqual([0, 800]);
    expect(lm.leftEye[0]).toEqual([136, 236]);
    expect(lm.rightEye[0]).toEqual([142, 242]);
    expect(lm.mouth).toHaveLength(20);
    expect(lm.mouth[0]).toEqual([148, 248]);
    expect(toPhotoLandmarks(grid.slice(1), 640, 800)).toBeNull();
  });
});
