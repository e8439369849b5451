/** The Persona Studio mark: a person in a rounded square. */
export function LogoMark({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true" focusable="false">
      <defs>
        <linearGradient id="persona-logo-gradient" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#6366f1" />
          <stop offset="1" stopColor="#4338ca" />
        </linearGradient>
      </defs>
      <rect width="64" height="64" rx="16" fill="url(#persona-logo-gradient)" />
      <circle cx="32" cy="25" r="10" fill="#fff" />
      <path d="M14 52c2-10 9-15 18-15s16 5 18 15" fill="#fff" />
    </svg>
  );
}
