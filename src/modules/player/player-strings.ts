/** What the player itself says to the learner (the launch link's `culture` picks the language; English otherwise). */
export interface PlayerStrings {
  previous: string;
  continue: string;
  exit: string;
  /** SCORM 2004 sequencing: Suspend All (leave, and resume here next time). */
  suspend: string;
  /** SCORM 2004 sequencing: the course's rules refused a navigation request. */
  notAllowed: string;
  navigation: string;
  contents: string;
  doneTitle: string;
  doneText: string;
  readyTitle: string;
  readyText: string;
  elsewhereTitle: string;
  elsewhereText: string;
  open: string;
  showWindow: string;
  popupBlocked: string;
  sessionEnded: string;
  /** A SCO exited and the exit action is DISPLAY_MESSAGE. */
  scoExited: string;
  /** The exit action is EXIT_COURSE_AFTER_CONFIRM. */
  confirmExit: string;
  /** Concurrent launch detection: the course was launched again elsewhere. */
  launchedElsewhere: string;
  /** `{n}` = the number of attempts so far. */
  saveFailing: string;
  nextFailed: string;
  /** PlayerShowHelp: the help button and its text. */
  help: string;
  helpText: string;
  /** PlayerShowCloseItem: the button that closes the current lesson, and what the page says after. */
  close: string;
  closedText: string;
  /** PlayerAlwaysFlowToFirstSco NO: the course's rules start nowhere; the learner chooses. */
  chooseText: string;
  /** PlayerShowProgressBar: the progress bar's label. */
  progress: string;
  /** PlayerRequiredWidth/Height: `{w}`×`{h}` needed, `{cw}`×`{ch}` now. */
  tooSmall: string;
  /** PlayerRequiredFullScreen. */
  needsFullScreen: string;
  fullScreen: string;
  /** Table of contents marks (PlayerStatusDisplayPreference), read by screen readers. */
  completed: string;
  incomplete: string;
  notStarted: string;
  passed: string;
  failed: string;
  /** PlayerTimeLimit: the course's time ran out (the session ends). */
  timeUp: string;
}

const EN: PlayerStrings = {
  previous: 'Previous',
  continue: 'Continue',
  exit: 'Exit',
  suspend: 'Suspend',
  notAllowed: 'That is not available now: {reason}',
  navigation: 'Course navigation',
  contents: 'Table of contents',
  doneTitle: 'You have left the course',
  doneText: 'Your progress has been saved. You may close this window.',
  readyTitle: 'Your course is ready',
  readyText: 'The course opens in a window of its own.',
  elsewhereTitle: 'The course is open in another window',
  elsewhereText: 'Work through the course in its own window; this page saves your progress. Closing the course window ends the lesson.',
  open: 'Open the course',
  showWindow: 'Show the course window',
  popupBlocked: 'Your browser blocked the course window. Use the button below to open it.',
  sessionEnded: 'This session has ended; your latest progress could not be saved. Launch the course again.',
  scoExited: 'This part of the course has ended. Choose where to go next from the table of contents, or exit.',
  confirmExit: 'You have finished this part of the course. Leave the course now?',
  launchedElsewhere: 'The course was launched again in another window. Progress made in this window is no longer saved; continue in the other window.',
  saveFailing: 'Your progress could not be saved ({n} attempts). Retrying; please keep this window open.',
  nextFailed: 'The next part of the course could not be opened. Check your connection and try again.',
  help: 'Help',
  helpText: 'Continue and Previous move through the course; pick a lesson in the table of contents to go to it. Exit leaves the course (your progress is saved); Suspend leaves it so that you resume where you were next time.',
  close: 'Close lesson',
  closedText: 'This lesson is closed. Choose where to go next.',
  chooseText: 'Choose a lesson in the table of contents to begin.',
  progress: 'Course progress',
  tooSmall: 'This course needs a window of at least {w} × {h} pixels (yours is {cw} × {ch}). Please enlarge the window.',
  needsFullScreen: 'This course must run full screen.',
  fullScreen: 'Full screen',
  completed: 'completed',
  incomplete: 'incomplete',
  notStarted: 'not started',
  passed: 'passed',
  failed: 'failed',
  timeUp: 'The time allowed for this course has run out. Your progress has been saved.',
};

const FR: PlayerStrings = {
  previous: 'Précédent',
  continue: 'Continuer',
  exit: 'Quitter',
  suspend: 'Suspendre',
  notAllowed: 'Ce n’est pas possible maintenant : {reason}',
  navigation: 'Navigation du cours',
  contents: 'Table des matières',
  doneTitle: 'Vous avez quitté le cours',
  doneText: 'Votre progression est enregistrée. Vous pouvez fermer cette fenêtre.',
  readyTitle: 'Votre cours est prêt',
  readyText: 'Le cours s’ouvre dans une fenêtre à part.',
  elsewhereTitle: 'Le cours est ouvert dans une autre fenêtre',
  elsewhereText: 'Suivez le cours dans sa fenêtre ; cette page enregistre votre progression. Fermer la fenêtre du cours termine la leçon.',
  open: 'Ouvrir le cours',
  showWindow: 'Afficher la fenêtre du cours',
  popupBlocked: 'Votre navigateur a bloqué la fenêtre du cours. Utilisez le bouton ci-dessous pour l’ouvrir.',
  sessionEnded: 'Cette session est terminée ; votre dernière progression n’a pas pu être enregistrée. Relancez le cours.',
  scoExited: 'Cette partie du cours est terminée. Choisissez la suite dans la table des matières, ou quittez.',
  confirmExit: 'Vous avez terminé cette partie du cours. Quitter le cours maintenant ?',
  launchedElsewhere: 'Le cours a été relancé dans une autre fenêtre. La progression faite dans cette fenêtre n’est plus enregistrée ; continuez dans l’autre fenêtre.',
  saveFailing: 'Votre progression n’a pas pu être enregistrée ({n} tentatives). Nouvel essai ; gardez cette fenêtre ouverte.',
  nextFailed: 'La partie suivante du cours n’a pas pu être ouverte. Vérifiez votre connexion et réessayez.',
  help: 'Aide',
  helpText: 'Continuer et Précédent parcourent le cours ; choisissez une leçon dans la table des matières pour y aller. Quitter ferme le cours (votre progression est enregistrée) ; Suspendre le ferme pour reprendre au même endroit la prochaine fois.',
  close: 'Fermer la leçon',
  closedText: 'Cette leçon est fermée. Choisissez la suite.',
  chooseText: 'Choisissez une leçon dans la table des matières pour commencer.',
  progress: 'Progression du cours',
  tooSmall: 'Ce cours demande une fenêtre d’au moins {w} × {h} pixels (la vôtre fait {cw} × {ch}). Agrandissez la fenêtre.',
  needsFullScreen: 'Ce cours doit être affiché en plein écran.',
  fullScreen: 'Plein écran',
  completed: 'terminé',
  incomplete: 'en cours',
  notStarted: 'non commencé',
  passed: 'réussi',
  failed: 'échoué',
  timeUp: 'Le temps accordé pour ce cours est écoulé. Votre progression a été enregistrée.',
};

const DE: PlayerStrings = {
  previous: 'Zurück',
  continue: 'Weiter',
  exit: 'Beenden',
  suspend: 'Unterbrechen',
  notAllowed: 'Das ist jetzt nicht möglich: {reason}',
  navigation: 'Kursnavigation',
  contents: 'Inhaltsverzeichnis',
  doneTitle: 'Sie haben den Kurs verlassen',
  doneText: 'Ihr Fortschritt wurde gespeichert. Sie können dieses Fenster schließen.',
  readyTitle: 'Ihr Kurs ist bereit',
  readyText: 'Der Kurs öffnet sich in einem eigenen Fenster.',
  elsewhereTitle: 'Der Kurs ist in einem anderen Fenster geöffnet',
  elsewhereText: 'Bearbeiten Sie den Kurs in seinem Fenster; diese Seite speichert Ihren Fortschritt. Das Schließen des Kursfensters beendet die Lektion.',
  open: 'Kurs öffnen',
  showWindow: 'Kursfenster anzeigen',
  popupBlocked: 'Ihr Browser hat das Kursfenster blockiert. Öffnen Sie es mit der Schaltfläche unten.',
  sessionEnded: 'Diese Sitzung ist beendet; Ihr letzter Fortschritt konnte nicht gespeichert werden. Starten Sie den Kurs erneut.',
  scoExited: 'Dieser Teil des Kurses ist beendet. Wählen Sie im Inhaltsverzeichnis, wie es weitergeht, oder beenden Sie den Kurs.',
  confirmExit: 'Sie haben diesen Teil des Kurses abgeschlossen. Den Kurs jetzt verlassen?',
  launchedElsewhere: 'Der Kurs wurde in einem anderen Fenster erneut gestartet. Fortschritt in diesem Fenster wird nicht mehr gespeichert; arbeiten Sie im anderen Fenster weiter.',
  saveFailing: 'Ihr Fortschritt konnte nicht gespeichert werden ({n} Versuche). Neuer Versuch; bitte lassen Sie dieses Fenster offen.',
  nextFailed: 'Der nächste Teil des Kurses konnte nicht geöffnet werden. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  help: 'Hilfe',
  helpText: 'Mit Weiter und Zurück gehen Sie durch den Kurs; wählen Sie eine Lektion im Inhaltsverzeichnis, um dorthin zu springen. Beenden verlässt den Kurs (Ihr Fortschritt wird gespeichert); Unterbrechen verlässt ihn, damit Sie nächstes Mal an derselben Stelle weitermachen.',
  close: 'Lektion schließen',
  closedText: 'Diese Lektion ist geschlossen. Wählen Sie, wie es weitergeht.',
  chooseText: 'Wählen Sie eine Lektion im Inhaltsverzeichnis, um zu beginnen.',
  progress: 'Kursfortschritt',
  tooSmall: 'Dieser Kurs braucht ein Fenster von mindestens {w} × {h} Pixeln (Ihres hat {cw} × {ch}). Bitte vergrößern Sie das Fenster.',
  needsFullScreen: 'Dieser Kurs muss im Vollbild laufen.',
  fullScreen: 'Vollbild',
  completed: 'abgeschlossen',
  incomplete: 'begonnen',
  notStarted: 'nicht begonnen',
  passed: 'bestanden',
  failed: 'nicht bestanden',
  timeUp: 'Die für diesen Kurs vorgesehene Zeit ist abgelaufen. Ihr Fortschritt wurde gespeichert.',
};

const ES: PlayerStrings = {
  previous: 'Anterior',
  continue: 'Continuar',
  exit: 'Salir',
  suspend: 'Suspender',
  notAllowed: 'No está disponible ahora: {reason}',
  navigation: 'Navegación del curso',
  contents: 'Índice',
  doneTitle: 'Ha salido del curso',
  doneText: 'Su progreso se ha guardado. Puede cerrar esta ventana.',
  readyTitle: 'Su curso está listo',
  readyText: 'El curso se abre en una ventana propia.',
  elsewhereTitle: 'El curso está abierto en otra ventana',
  elsewhereText: 'Realice el curso en su ventana; esta página guarda su progreso. Cerrar la ventana del curso termina la lección.',
  open: 'Abrir el curso',
  showWindow: 'Mostrar la ventana del curso',
  popupBlocked: 'Su navegador bloqueó la ventana del curso. Use el botón de abajo para abrirla.',
  sessionEnded: 'Esta sesión ha terminado; no se pudo guardar su último progreso. Vuelva a iniciar el curso.',
  scoExited: 'Esta parte del curso ha terminado. Elija cómo seguir en la tabla de contenidos, o salga.',
  confirmExit: 'Ha terminado esta parte del curso. ¿Salir del curso ahora?',
  launchedElsewhere: 'El curso se ha abierto de nuevo en otra ventana. El progreso en esta ventana ya no se guarda; continúe en la otra ventana.',
  saveFailing: 'No se pudo guardar su progreso ({n} intentos). Reintentando; mantenga esta ventana abierta.',
  nextFailed: 'No se pudo abrir la siguiente parte del curso. Compruebe su conexión e inténtelo de nuevo.',
  help: 'Ayuda',
  helpText: 'Continuar y Anterior recorren el curso; elija una lección en el índice para ir a ella. Salir cierra el curso (su progreso se guarda); Suspender lo cierra para continuar donde estaba la próxima vez.',
  close: 'Cerrar la lección',
  closedText: 'Esta lección está cerrada. Elija cómo continuar.',
  chooseText: 'Elija una lección en el índice para empezar.',
  progress: 'Progreso del curso',
  tooSmall: 'Este curso necesita una ventana de al menos {w} × {h} píxeles (la suya mide {cw} × {ch}). Amplíe la ventana.',
  needsFullScreen: 'Este curso debe verse a pantalla completa.',
  fullScreen: 'Pantalla completa',
  completed: 'completado',
  incomplete: 'en curso',
  notStarted: 'sin empezar',
  passed: 'aprobado',
  failed: 'suspendido',
  timeUp: 'El tiempo permitido para este curso se ha agotado. Su progreso se ha guardado.',
};

const BY_LANGUAGE: Record<string, PlayerStrings> = { en: EN, fr: FR, de: DE, es: ES };

/** The player's strings for a culture code (`fr-CA` → French); languages the player does not speak get English. */
export function playerStrings(culture: string | undefined): { lang: string; strings: PlayerStrings } {
  const primary = (culture ?? 'en').split('-')[0].toLowerCase();
  const strings = BY_LANGUAGE[primary];
  return strings && culture ? { lang: culture, strings } : { lang: 'en', strings: EN };
}
