/**
 * Passwords too common to accept, and the patterns they follow. Written for fw by hand (no list
 * was copied or downloaded): the words are the ones that top every published breach-frequency
 * ranking (SplashData's yearly lists, the RockYou and Have I Been Pwned top entries), which
 * are facts, not anyone's text; this file is fw's, under fw's licence. Compact on purpose: it
 * catches the guesses an attacker tries first, which is what a rate-limited form needs. An app
 * that wants more (a breach corpus, zxcvbn) checks it in its own sign-up step.
 */

/** Whole passwords (compared in lower case, spaces, dashes and dots left out) of 12 or more characters. */
const PHRASES: readonly string[] = [
  "correcthorsebatterystaple", "iloveyouforever", "iloveyoubaby", "letmeinplease", "trustnoone",
  "passwordpassword", "mypasswordis", "thisismypassword", "changemenow", "welcomehome",
  "ihateyouall", "qwertyuiopasdfghjkl", "qwertyuiopasdfgh", "asdfghjklzxcvbnm", "zaqxswcdevfr",
  "qazwsxedcrfv", "qazwsxedcrfvtgb", "1qaz2wsx3edc", "1qaz2wsx3edc4rfv", "zaq12wsxcde3",
  "q1w2e3r4t5y6", "a1b2c3d4e5f6", "1q2w3e4r5t6y", "1q2w3e4r5t6y7u8i", "blink182blink182",
  "administrator", "administrator1", "superadministrator", "rootpassword", "adminadmin123",
  "starwarsstarwars", "maytheforcebewithyou", "harrypotter123", "pokemonpokemon",
  "chocolatechip", "happybirthday", "princessprincess", "sunshinesunshine", "footballfootball",
  "baseballbaseball", "basketball123", "manchesterunited", "liverpoolfc123", "minecraftminecraft",
  "donaldtrump2020", "jesuschrist", "jesusislord", "godisgood123", "iloveyoujesus",
];

/**
 * Words that, with only digits, symbols and repetition around them, make a common password:
 * "Password2024!", "qwerty123456", "iloveyou!!!!", "P@ssw0rd1234" (letters read back from leet).
 */
const WORDS: readonly string[] = [
  "password", "passwort", "motdepasse", "contrasena", "senha", "qwerty", "qwertz", "azerty", "asdf",
  "zxcvbn", "letmein", "welcome", "iloveyou", "admin", "administrator", "root", "login", "user",
  "guest", "test", "demo", "secret", "monkey", "dragon", "master", "shadow", "sunshine", "princess",
  "football", "baseball", "soccer", "hockey", "superman", "batman", "starwars", "pokemon", "minecraft",
  "trustno", "whatever", "freedom", "flower", "hello", "charlie", "michael", "jordan", "jennifer",
  "hunter", "killer", "ninja", "mustang", "access", "changeme", "default", "abc", "abcdef", "qazwsx",
  "summer", "winter", "spring", "autumn", "love", "lovely", "angel", "baby", "god", "jesus", "fuck", "fuckyou",
];

const LEET: Readonly<Record<string, string>> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", $: "s", "!": "i" };

/** Keyboard rows and runs an attacker walks: a password that is a stretch of one (either way) is common. */
const RUNS: readonly string[] = ["1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm", "abcdefghijklmnopqrstuvwxyz", "qwertzuiop", "azertyuiop"];

const PHRASE_SET = new Set(PHRASES);
const WORD_SET = new Set(WORDS);

/** True when `password` is on the list or follows one of its patterns. */
export function isCommonPassword(password: string): boolean {
  const plain = password.normalize("NFKC").toLowerCase();
  const squeezed = plain.replace(/[\s._-]+/g, "");
  if (PHRASE_SET.has(squeezed) || repeatsUnit(squeezed) || isRun(squeezed)) return true;
  // Letters alone; and digits and symbols read back as the letters they stand for, inside the
  // word only ("P@ssw0rd1234": the digits after it are digits, not letters).
  const bare = squeezed.replace(/[^\p{L}]+/gu, "");
  const inner = squeezed.replace(/^[^\p{L}@$]+|[^\p{L}]+$/gu, "");
  const letters = [...inner].map((char) => LEET[char] ?? char).join("").replace(/[^\p{L}]+/gu, "");
  // A run or a repetition with digits and symbols around it ("qwertyuiop123", "abcabc!!2024") too.
  return [letters, bare].some((word) => WORD_SET.has(word) || PHRASE_SET.has(word) || isRepeatedWord(word) || (word.length >= 4 && (isRun(word) || repeatsUnit(word))));
}

/** "abcabcabcabc", "aaaaaaaaaaaa", "121212121212": one short unit over and over. */
function repeatsUnit(text: string): boolean {
  return /^(.{1,4})\1+$/su.test(text);
}

/** "123456789012" is "1234567890" and on; "zyxwvutsrqpo" a run backwards: stretches of RUNS, wrapping. */
function isRun(text: string): boolean {
  for (const run of RUNS) {
    for (const way of [run, [...run].reverse().join("")]) {
      const looped = way.repeat(Math.ceil(text.length / way.length) + 1);
      if (looped.includes(text)) return true;
    }
  }
  return false;
}

/** A common word said twice or more ("monkeymonkeymonkey"). */
function isRepeatedWord(text: string): boolean {
  const found = /^(.+?)\1+$/su.exec(text);
  return found !== null && WORD_SET.has(found[1] as string);
}
