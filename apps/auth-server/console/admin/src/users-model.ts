// The admin API's User JSON, as far as the console reads it.
export interface Identity {
  identity_id?: string;
  id: string;
  provider: string;
  email?: string;
  created_at?: string;
  last_sign_in_at?: string;
}

export interface User {
  id: string;
  email?: string;
  phone?: string;
  role?: string;
  created_at?: string;
  updated_at?: string;
  last_sign_in_at?: string;
  email_confirmed_at?: string;
  phone_confirmed_at?: string;
  banned_until?: string;
  is_anonymous?: boolean;
  app_metadata?: Record<string, unknown>;
  user_metadata?: Record<string, unknown>;
  identities?: Identity[];
}

export function isBanned(user: User): boolean {
  return Boolean(user.banned_until && Date.parse(user.banned_until) > Date.now());
}

export function formatDate(value: string | undefined | null): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}
