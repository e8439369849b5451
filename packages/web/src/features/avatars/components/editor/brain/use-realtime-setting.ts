import { useEffect, useState } from 'react';
import { useOptionalEditorSession } from '../editor-session';

/**
 * The avatar's Realtime setting as the Advanced tab holds it (unsaved edits included), else as
 * stored. The Brain tab's STT choices and the Functions sub-tab depend on it.
 */
export function useRealtimeSetting(): boolean {
  const session = useOptionalEditorSession();
  const form = session?.advancedForm;
  const [isRealtime, setIsRealtime] = useState<boolean>(() => Boolean(form?.getValues('realtime') ?? session?.agent?.realtime ?? false));
  useEffect(() => {
    if (!form) return;
    setIsRealtime(Boolean(form.getValues('realtime')));
    const subscription = form.watch((values) => setIsRealtime(Boolean(values.realtime)));
    return () => subscription.unsubscribe();
  }, [form]);
  return isRealtime;
}
