// A JSON object edited as text: the parse error (with where it is) shown at the field before anything is sent, so
// an admin editing app_metadata never loses the text they typed nor sends something the API would refuse.
import { useState } from 'react';
import { TextAreaField } from './components';

export type JsonObject = Record<string, unknown>;

/** The object the text stands for, or the reason it is not one. */
export function parseJsonObject(text: string): { value: JsonObject } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    return { error: `Not valid JSON: ${(cause as Error).message}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'Must be a JSON object ({ ... })' };
  return { value: parsed as JsonObject };
}

export function JsonField(props: {
  label: string;
  initial: JsonObject;
  hint?: string;
  /** An error the service reported for this field. */
  error?: string;
  onValid(value: JsonObject | undefined): void;
}) {
  const [text, setText] = useState(() => JSON.stringify(props.initial, null, 2));
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <TextAreaField
      label={props.label}
      hint={props.hint}
      error={problem ?? props.error}
      value={text}
      rows={8}
      spellCheck={false}
      className="kz-mono"
      onChange={(event) => {
        const next = event.target.value;
        setText(next);
        const result = parseJsonObject(next);
        if ('error' in result) {
          setProblem(result.error);
          props.onValid(undefined);
        } else {
          setProblem(undefined);
          props.onValid(result.value);
        }
      }}
    />
  );
}
