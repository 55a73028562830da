/**
 * Word lists the generated catalog draws from. Title words deliberately repeat ("Love", "Night", "Star") so that
 * searches for them return several pages, as real searches do.
 */

/** Words that lead or close generated titles; each appears in many titles. */
export const ANCHOR_WORDS = ['Love', 'Night', 'Star', 'Shadow', 'City', 'Blood', 'Summer', 'Dragon'];

export const TITLE_ADJECTIVES = [
  'Silent', 'Broken', 'Last', 'Hidden', 'Crimson', 'Forgotten', 'Golden', 'Wild', 'Dark', 'Lost', 'Burning', 'Frozen',
  'Electric', 'Quiet', 'Savage', 'Endless', 'Hollow', 'Midnight', 'Scarlet', 'Restless', 'Little', 'Final', 'Secret',
  'Stolen', 'Wicked',
];

export const TITLE_NOUNS = [
  'River', 'Kingdom', 'Harbor', 'Garden', 'Empire', 'Mirror', 'Storm', 'Promise', 'Winter', 'Machine', 'Horizon',
  'Orchard', 'Witness', 'Frontier', 'Lighthouse', 'Station', 'Heart', 'Crown', 'Signal', 'Valley', 'Echo', 'Ghost',
  'Tide', 'Circus', 'Highway', 'Sparrow', 'Engine', 'Island', 'Letter', 'Carnival',
];

export const PLACES = [
  'Paris', 'Tokyo', 'Brooklyn', 'Havana', 'Marrakesh', 'Alaska', 'Vienna', 'Montana', 'Lisbon', 'Berlin', 'Memphis',
  'Shanghai', 'Tangier', 'Oslo', 'Manila',
];

export const FIRST_NAMES = [
  'James', 'Maria', 'Robert', 'Sofia', 'Michael', 'Akira', 'Elena', 'David', 'Priya', 'Thomas', 'Chloe', 'Daniel',
  'Ingrid', 'Samuel', 'Nadia', 'Oliver', 'Grace', 'Lucas', 'Amara', 'Henry', 'Isabel', 'Victor', 'Mei', 'Jonah',
  'Claire', 'Rafael', 'Hannah', 'Felix', 'Zoe', 'Omar',
];

export const LAST_NAMES = [
  'Whitaker', 'Lindqvist', 'Moreau', 'Okafor', 'Castellano', 'Brennan', 'Tanaka', 'Hollis', 'Varga', 'Delgado',
  'Ashford', 'Kowalski', 'Rahman', 'Sinclair', 'Novak', 'Fairbanks', 'Iwasaki', 'Mercer', 'Abernathy', 'Quinlan',
  'Ferreira', 'Halloran', 'Petrov', 'Lindgren', 'Osei', 'Carrington', 'Baptiste', 'Keller', 'Montague', 'Reyes',
];

export const MOVIE_GENRES = [
  'Action', 'Adventure', 'Animation', 'Biography', 'Comedy', 'Crime', 'Drama', 'Family', 'Fantasy', 'History',
  'Horror', 'Music', 'Mystery', 'Romance', 'Sci-Fi', 'Sport', 'Thriller', 'War', 'Western',
];

export const LANGUAGES = ['English', 'French', 'Spanish', 'German', 'Italian', 'Japanese', 'Korean', 'Mandarin', 'Swedish'];

export const COUNTRIES = [
  'United States', 'United Kingdom', 'France', 'Canada', 'Germany', 'Spain', 'Italy', 'Japan', 'South Korea', 'Australia',
  'Sweden', 'Mexico',
];

export const STUDIOS = [
  'Warner Bros.', 'Paramount Pictures', 'Universal Pictures', '20th Century Fox', 'Columbia Pictures', 'Lionsgate',
  'Focus Features', 'A24', 'Miramax', 'New Line Cinema',
];

export const PROTAGONISTS = [
  'a retired detective', 'a young widow', 'an ambitious chef', 'two estranged brothers', 'a small-town sheriff',
  'a disgraced surgeon', 'a teenage runaway', 'an aging jazz musician', 'a rookie reporter', 'a former smuggler',
  'a lonely lighthouse keeper', 'a brilliant but reckless pilot', 'three childhood friends', 'a grieving father',
  'an exiled princess', 'a stubborn schoolteacher',
];

export const SETTINGS = [
  'in 1970s Los Angeles', 'on a remote island', 'during the last days of the war', 'in a city that never sleeps',
  'in a dying mining town', 'aboard a stranded starship', 'on the eve of a royal wedding', 'across the American West',
  'in the shadow of a volcano', 'in a near-future megacity',
];

export const ACTIONS = [
  'must outwit', 'races to stop', 'uncovers', 'falls for', 'is hunted by', 'teams up with', 'sets out to expose',
  'becomes entangled with', 'tries to escape', 'is drawn into a feud with',
];

export const ANTAGONISTS = [
  'a ruthless cartel', 'a conspiracy reaching the highest office', 'a charming con artist', 'an ancient curse',
  'a rival family', 'a rogue artificial intelligence', 'a serial killer who leaves riddles', 'the ghost of an old lover',
  'a corrupt mayor', 'an invading armada',
];

export const COMPLICATIONS = [
  'Old loyalties are tested when a long-buried secret comes to light.',
  'Every step forward costs a friend, and time is running out.',
  'A storm cuts the town off from the world just as the truth begins to surface.',
  'What begins as a favor turns into the most dangerous job of their life.',
  'Their only ally may be the person they trust the least.',
  'The closer they get to the answer, the less they recognize themselves.',
  'A single photograph changes everything they believed about their past.',
  'Help arrives from the last place anyone expected.',
];

export const RESOLUTIONS = [
  'In the end, survival will demand a sacrifice no one is ready to make.',
  'Nothing will be the same once the sun comes up.',
  'Redemption, it turns out, has a price.',
  'The final confrontation takes place where it all began.',
  'Some doors, once opened, can never be closed again.',
];

/** Query words that match nearly everything; a search made only of them is refused as "Too many results.". */
export const STOP_WORDS = new Set(['the', 'a', 'an', 'of', 'and', 'in', 'on', 'to', 'at', 'for', 'is', 'it', 'with', 'by', 'or']);
