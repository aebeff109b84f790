/** What the e-mail of a private invitation says: the invitation's subject and body (or defaults), the course title, the link. */
export function invitationEmail(input: { subject: string | null; body: string | null; courseTitle: string; link: string }): { subject: string; text: string; html: string } {
  const title = input.courseTitle.trim() || 'a course';
  const subject = oneLine(input.subject?.trim() || `You are invited to take ${title}`);
  const body = input.body?.trim() || `You have been invited to take the course "${title}".\n\nOpen the link below to start. The link is yours alone: please do not share it.`;
  const text = `${body}\n\n${title}\n${input.link}\n`;
  const paragraphs = body
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
    `<body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:40em">\n${paragraphs}\n` +
    `<p><a href="${escapeHtml(input.link)}" style="display:inline-block;padding:.6em 1.2em;background:#1a56b0;color:#fff;text-decoration:none;border-radius:4px">Start ${escapeHtml(title)}</a></p>\n` +
    `<p style="font-size:.9em;color:#444">If the button does not work, copy this address into your browser:<br>${escapeHtml(input.link)}</p>\n</body></html>\n`;
  return { subject, text, html };
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').slice(0, 998);
}
