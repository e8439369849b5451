import { useMemo } from 'react';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { python } from '@codemirror/lang-python';
import { codeHighlighting } from './code-highlight';
import type { PythonEditorProps } from './python-editor';

export default function PythonEditorImpl({ value, onChange, onFocus, readOnly = false, label, height }: PythonEditorProps & { height: number }) {
  // The name goes on the editable element (role textbox), not on CodeMirror's wrapper (WCAG 4.1.2);
  // it takes the keyboard focus even read-only, so the code can be scrolled without a mouse (2.1.1).
  const extensions = useMemo(() => [python(), codeHighlighting, EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' })], [label]);
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      onFocus={onFocus}
      readOnly={readOnly}
      editable={!readOnly}
      extensions={extensions}
      height={`${height}px`}
      indentWithTab
      basicSetup={{ lineNumbers: true, foldGutter: true, highlightActiveLine: !readOnly, tabSize: 4 }}
    />
  );
}
