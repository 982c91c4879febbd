// The one shape every DNS rule violation takes: which field broke which rule, in words a user can act on.
// Services turn a list of these into a 400 that names each field and rule.
export interface FieldError {
  field: string;
  rule: string;
  message: string;
}

export function fieldError(field: string, rule: string, message: string): FieldError {
  return { field, rule, message };
}
