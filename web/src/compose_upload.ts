// File uploads from compose (its button, a drop or a paste): each file stored, then linked in the
// message where the caret is.
import { useState } from 'preact/hooks';
import { upload } from './api';
import { content } from './compose_state';

/** The number of uploads under way, and the function that uploads files into the message. */
export function useFileUploads(msgRef: { current: HTMLTextAreaElement | null }, setError: (message: string) => void) {
  const [uploading, setUploading] = useState(0);
  const insertText = (s: string) => {
    const el = msgRef.current;
    const at = el ? el.selectionStart : content.value.length;
    content.value = content.value.slice(0, at) + s + content.value.slice(at);
  };

  const uploadFiles = async (files: FileList | File[]) => {
    for (const f of Array.from(files)) {
      setUploading((n) => n + 1);
      try {
        const res = await upload(f);
        insertText(`[${f.name}](${res.url}) `);
      } catch (e) {
        setError(e instanceof Error ? e.message : 'Upload failed');
      } finally {
        setUploading((n) => n - 1);
      }
    }
  };
  return { uploading, uploadFiles };
}
