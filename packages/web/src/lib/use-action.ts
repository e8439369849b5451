import { useCallback, useRef, useState } from 'react';

export type ActionState<TOut> =
  | { status: 'idle'; data: undefined; error: null }
  | { status: 'pending'; data: undefined; error: null }
  | { status: 'success'; data: TOut; error: null }
  | { status: 'error'; data: undefined; error: unknown };

export interface RunOptions<TOut> {
  onSuccess?: (data: TOut) => void;
}

/**
 * A one-shot async action with pending / success / error states, for the sign-in path, which
 * stays free of TanStack Query to keep the sign-in page small. Everything else uses useMutation.
 * `action` should be stable (a module-level function).
 */
export function useAction<TIn, TOut>(action: (input: TIn) => Promise<TOut>) {
  const [state, setState] = useState<ActionState<TOut>>({ status: 'idle', data: undefined, error: null });
  const runId = useRef(0);

  const run = useCallback((input: TIn, options?: RunOptions<TOut>) => {
    const id = ++runId.current;
    setState({ status: 'pending', data: undefined, error: null });
    action(input).then(
      (data) => {
        if (id !== runId.current) return;
        setState({ status: 'success', data, error: null });
        options?.onSuccess?.(data);
      },
      (error: unknown) => {
        if (id !== runId.current) return;
        setState({ status: 'error', data: undefined, error });
      },
    );
  }, [action]);

  return {
    ...state,
    run,
    isPending: state.status === 'pending',
    isSuccess: state.status === 'success',
    isError: state.status === 'error',
  };
}
