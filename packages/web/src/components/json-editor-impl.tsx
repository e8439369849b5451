import { useMemo } from 'react';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { json } from '@codemirror/lang-json';
import { codeHighlighting } from './code-highlight';
import type { JsonEditorProps } from './json-editor';

export default function JsonEditorImpl({ value, onChange, readOnly = false, label, minHeight = 320 }: JsonEditorProps) {
  // The name goes on the editable element (role textbox), not on CodeMirror's wrapper (WCAG 4.1.2);
  // it takes the keyboard focus even read-only, so the code can be scrolled without a mouse (2.1.1).
  const extensions = useMemo(() => [json(), codeHighlighting, EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' })], [label]);
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      readOnly={readOnly}
      editable={!readOnly}
      extensions={extensions}
      minHeight={`${minHeight}px`}
      maxHeight="560px"
      basicSetup={{ lineNumbers: true, foldGutter: true, highlightActiveLine: !readOnly }}
    />
  );
}
