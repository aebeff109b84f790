import { escapeHtml } from './invitation-email-content';

/** The words of the invitation pages; `{title}` is the course title. */
export interface InvitationStrings {
  lang: string;
  heading: string;
  intro: string;
  firstName: string;
  lastName: string;
  email: string;
  launch: string;
  required: string;
  invalidEmail: string;
  closedTitle: string;
  closed: string;
  expired: string;
  full: string;
  noNew: string;
  notFoundTitle: string;
  notFound: string;
  errorSummary: string;
}

const STRINGS: Record<string, InvitationStrings> = {
  en: {
    lang: 'en',
    heading: '{title}',
    intro: 'You are invited to take this course. Give your name and e-mail address, then start. Coming back later with the same address takes you back to where you were.',
    firstName: 'First name',
    lastName: 'Last name',
    email: 'E-mail address',
    launch: 'Start the course',
    required: 'Please fill in this field.',
    invalidEmail: 'Please give an e-mail address such as name@example.com.',
    closedTitle: 'This invitation is closed',
    closed: 'This invitation is closed: the course cannot be started from it.',
    expired: 'This invitation has expired: the course cannot be started from it any more.',
    full: 'This invitation has reached its number of places: no new learner can join.',
    noNew: 'This invitation takes no new learners. If you joined before, use the same e-mail address.',
    notFoundTitle: 'Invitation not found',
    notFound: 'There is no invitation at this address. Check the link you were given.',
    errorSummary: 'Please correct the fields below.',
  },
  fr: {
    lang: 'fr',
    heading: '{title}',
    intro: 'Vous êtes invité à suivre ce cours. Indiquez votre nom et votre adresse e-mail, puis commencez. En revenant plus tard avec la même adresse, vous reprendrez là où vous en étiez.',
    firstName: 'Prénom',
    lastName: 'Nom',
    email: 'Adresse e-mail',
    launch: 'Commencer le cours',
    required: 'Veuillez remplir ce champ.',
    invalidEmail: 'Veuillez indiquer une adresse e-mail comme nom@exemple.fr.',
    closedTitle: 'Cette invitation est fermée',
    closed: 'Cette invitation est fermée : le cours ne peut pas être lancé depuis celle-ci.',
    expired: 'Cette invitation a expiré : le cours ne peut plus être lancé depuis celle-ci.',
    full: 'Cette invitation a atteint son nombre de places : aucun nouvel apprenant ne peut la rejoindre.',
    noNew: "Cette invitation n'accepte plus de nouveaux apprenants. Si vous l'avez déjà rejointe, utilisez la même adresse e-mail.",
    notFoundTitle: 'Invitation introuvable',
    notFound: "Il n'y a pas d'invitation à cette adresse. Vérifiez le lien que vous avez reçu.",
    errorSummary: 'Veuillez corriger les champs ci-dessous.',
  },
  de: {
    lang: 'de',
    heading: '{title}',
    intro: 'Sie sind zu diesem Kurs eingeladen. Geben Sie Ihren Namen und Ihre E-Mail-Adresse an und starten Sie. Mit derselben Adresse machen Sie später dort weiter, wo Sie aufgehört haben.',
    firstName: 'Vorname',
    lastName: 'Nachname',
    email: 'E-Mail-Adresse',
    launch: 'Kurs starten',
    required: 'Bitte füllen Sie dieses Feld aus.',
    invalidEmail: 'Bitte geben Sie eine E-Mail-Adresse wie name@beispiel.de an.',
    closedTitle: 'Diese Einladung ist geschlossen',
    closed: 'Diese Einladung ist geschlossen: Der Kurs kann darüber nicht gestartet werden.',
    expired: 'Diese Einladung ist abgelaufen: Der Kurs kann darüber nicht mehr gestartet werden.',
    full: 'Diese Einladung hat ihre Teilnehmerzahl erreicht: Es können keine neuen Lernenden beitreten.',
    noNew: 'Diese Einladung nimmt keine neuen Lernenden auf. Wenn Sie schon beigetreten sind, verwenden Sie dieselbe E-Mail-Adresse.',
    notFoundTitle: 'Einladung nicht gefunden',
    notFound: 'Unter dieser Adresse gibt es keine Einladung. Prüfen Sie den Link, den Sie erhalten haben.',
    errorSummary: 'Bitte korrigieren Sie die Felder unten.',
  },
};

/** The first language of Accept-Language that has a translation; English otherwise. */
export function stringsFor(acceptLanguage: string | undefined): InvitationStrings {
  const wanted = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((x) => x.tag !== '' && x.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of wanted) {
    const base = tag.split('-')[0];
    if (STRINGS[base]) return STRINGS[base];
  }
  return STRINGS.en;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:1.0625rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#f4f5f7}
main{max-width:34rem;margin:0 auto;padding:1.25rem 1rem 3rem}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem;overflow-wrap:anywhere}
.card{background:#fff;border:1px solid #d0d4da;border-radius:8px;padding:1.25rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{display:block;width:100%;font:inherit;padding:.6rem .7rem;border:2px solid #6b7280;border-radius:6px;background:#fff;color:inherit}
input:focus{outline:3px solid #1a56b0;outline-offset:1px;border-color:#1a56b0}
input[aria-invalid=true]{border-color:#b3261e}
.error{color:#b3261e;font-weight:600;margin:.25rem 0 0}
.summary{border:2px solid #b3261e;border-radius:6px;padding:.5rem .75rem;color:#b3261e;font-weight:600}
button{margin-top:1.5rem;width:100%;font:inherit;font-weight:700;padding:.8rem 1rem;border:0;border-radius:6px;background:#1a56b0;color:#fff;cursor:pointer}
button:hover{background:#134489}
button:focus{outline:3px solid #1b1b1b;outline-offset:2px}
.notice{font-size:1.125rem}
.card>p:first-child{margin-top:0}
.card>p:last-child{margin-bottom:0}
`;

function layout(s: InvitationStrings, title: string, body: string): string {
  return (
    `<!doctype html>\n<html lang="${s.lang}">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta name="robots" content="noindex">\n<title>${escapeHtml(title)}</title>\n<style>${STYLE}</style>\n</head>\n<body>\n<main>\n${body}\n</main>\n</body>\n</html>\n`
  );
}

export interface FormState {
  firstName: string;
  lastName: string;
  email: string;
  errors: Partial<Record<'firstName' | 'lastName' | 'email', string>>;
}

/** The join form of a public invitation; errors are shown next to their fields and announced. */
export function joinPage(s: InvitationStrings, courseTitle: string, action: string, state: FormState): string {
  const heading = s.heading.replace('{title}', courseTitle || '');
  const hasErrors = Object.keys(state.errors).length > 0;
  const field = (name: 'firstName' | 'lastName' | 'email', label: string, type: string, autocomplete: string) => {
    const error = state.errors[name];
    return (
      `<label for="${name}">${escapeHtml(label)}</label>\n` +
      `<input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}" required maxlength="${name === 'email' ? 191 : 255}"` +
      ` value="${escapeHtml(state[name])}"${error ? ` aria-invalid="true" aria-describedby="${name}-error"` : ''}>\n` +
      (error ? `<p class="error" id="${name}-error">${escapeHtml(error)}</p>\n` : '')
    );
  };
  return layout(
    s,
    heading,
    `<h1>${escapeHtml(heading)}</h1>\n<div class="card">\n<p>${escapeHtml(s.intro)}</p>\n` +
      (hasErrors ? `<p class="summary" role="alert">${escapeHtml(s.errorSummary)}</p>\n` : '') +
      `<form method="post" action="${escapeHtml(action)}" novalidate>\n` +
      field('firstName', s.firstName, 'text', 'given-name') +
      field('lastName', s.lastName, 'text', 'family-name') +
      field('email', s.email, 'email', 'email') +
      `<button type="submit">${escapeHtml(s.launch)}</button>\n</form>\n</div>`,
  );
}

/** A page that only says something: closed, expired, full, not found. */
export function noticePage(s: InvitationStrings, heading: string, text: string): string {
  return layout(s, heading, `<h1>${escapeHtml(heading)}</h1>\n<div class="card"><p class="notice" role="status">${escapeHtml(text)}</p></div>`);
}
