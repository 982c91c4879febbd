export { ApiError, errorFromBody, requestJson, type FieldProblem, type RequestOptions } from './api';
export { Alert, Button, Card, CopyButton, ErrorSummary, FieldFrame, fieldError, SelectField, Shell, TextAreaField, TextField, type NavLink } from './components';
export { JsonField, parseJsonObject, type JsonObject } from './json-field';
export { ConfirmDialog } from './confirm-dialog';
export { KeysetTable, type Column, type KeysetPage } from './keyset-table';
export { Tabs, type TabItem } from './tabs';
export { StatusMessage } from './live-region';
export { CheckboxGrid, type GridAxis, type GridCell } from './checkbox-grid';
