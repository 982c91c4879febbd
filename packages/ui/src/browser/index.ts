export { ApiError, errorFromBody, requestJson, type FieldProblem, type RequestOptions } from './api';
export { Alert, Button, Card, CopyButton, ErrorSummary, FieldFrame, fieldError, SelectField, Shell, TextAreaField, TextField, type NavLink } from './components';
