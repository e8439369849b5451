import '../live-client/avatar-page.css';
import { mountRefusal } from '../live-client/refusal';

// The refusal page (served for /avatar/{id} to a frame of a site the avatar does not allow).
const root = document.getElementById('avatar-root');
if (root) mountRefusal(root);
