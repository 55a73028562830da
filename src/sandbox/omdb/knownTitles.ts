/**
 * Real, well-known titles with their real IMDb IDs, years and directors, so that examples from the OMDb docs and
 * client fixtures (Superman tt0078346, Batman Begins tt0372784, Game of Thrones S1E1 tt1480055) work against the
 * sandbox. Ratings and votes are approximate; every other field is generated.
 */

export interface KnownMovie {
  id: string;
  rated: string;
  title: string;
  year: number;
  director: string;
  genre: string;
  rating: number;
  /** imdbVotes in thousands. */
  votesK: number;
  language?: string;
  country?: string;
}

export interface KnownSeries {
  id: string;
  title: string;
  rated: string;
  year: number;
  /** Last year aired; null while the series is still running ("2019–"); equal to `year` for a one-year series. */
  endYear: number | null;
  creators: string;
  genre: string;
  rating: number;
  votesK: number;
  /** Episode count of each season. */
  seasons: number[];
  /** Real episode titles where known, per season (index 0 = season 1). */
  episodeTitles?: string[][];
  /** The real first episode, when its ID is known. */
  pilot?: { id: string; released: string; rating: string };
}

const m = (
  id: string,
  rated: string,
  title: string,
  year: number,
  director: string,
  genre: string,
  rating: number,
  votesK: number,
  language?: string,
  country?: string,
): KnownMovie => ({ id, rated, title, year, director, genre, rating, votesK, language, country });

export const KNOWN_MOVIES: KnownMovie[] = [
  m('tt0372784', 'PG-13', 'Batman Begins', 2005, 'Christopher Nolan', 'Action, Crime, Drama', 8.2, 1620),
  m('tt0468569', 'PG-13', 'The Dark Knight', 2008, 'Christopher Nolan', 'Action, Crime, Drama', 9.0, 2890),
  m('tt1345836', 'PG-13', 'The Dark Knight Rises', 2012, 'Christopher Nolan', 'Action, Drama, Thriller', 8.4, 1840),
  m('tt0096895', 'PG-13', 'Batman', 1989, 'Tim Burton', 'Action, Adventure', 7.5, 410),
  m('tt0103776', 'PG-13', 'Batman Returns', 1992, 'Tim Burton', 'Action, Crime, Fantasy', 7.1, 330),
  m('tt0112462', 'PG-13', 'Batman Forever', 1995, 'Joel Schumacher', 'Action, Adventure', 5.4, 270),
  m('tt0118688', 'PG-13', 'Batman & Robin', 1997, 'Joel Schumacher', 'Action, Sci-Fi', 3.8, 260),
  m('tt1877830', 'PG-13', 'The Batman', 2022, 'Matt Reeves', 'Action, Crime, Drama', 7.8, 830),
  m('tt2975590', 'PG-13', 'Batman v Superman: Dawn of Justice', 2016, 'Zack Snyder', 'Action, Adventure, Sci-Fi', 6.5, 740),
  m('tt0106364', 'PG', 'Batman: Mask of the Phantasm', 1993, 'Eric Radomski, Bruce W. Timm', 'Animation, Action, Crime', 7.8, 56),
  m('tt4116284', 'PG', 'The Lego Batman Movie', 2017, 'Chris McKay', 'Animation, Action, Comedy', 7.3, 160),
  m('tt4853102', 'R', 'Batman: The Killing Joke', 2016, 'Sam Liu', 'Animation, Action, Crime', 6.4, 60),
  m('tt2313197', 'PG-13', 'Batman: The Dark Knight Returns, Part 1', 2012, 'Jay Oliva', 'Animation, Action, Crime', 7.6, 62),
  m('tt0060153', 'Approved', 'Batman: The Movie', 1966, 'Leslie H. Martinson', 'Adventure, Comedy, Crime', 6.5, 40),
  m('tt0348150', 'PG-13', 'Superman Returns', 2006, 'Bryan Singer', 'Action, Adventure, Sci-Fi', 6.1, 300),
  m('tt0081573', 'PG', 'Superman II', 1980, 'Richard Lester', 'Action, Adventure, Sci-Fi', 6.8, 110),
  m('tt0770828', 'PG-13', 'Man of Steel', 2013, 'Zack Snyder', 'Action, Adventure, Sci-Fi', 7.1, 830),
  m('tt0133093', 'R', 'The Matrix', 1999, 'Lana Wachowski, Lilly Wachowski', 'Action, Sci-Fi', 8.7, 2100),
  m('tt0234215', 'R', 'The Matrix Reloaded', 2003, 'Lana Wachowski, Lilly Wachowski', 'Action, Sci-Fi', 7.2, 640),
  m('tt0242653', 'R', 'The Matrix Revolutions', 2003, 'Lana Wachowski, Lilly Wachowski', 'Action, Sci-Fi', 6.7, 540),
  m('tt10838180', 'R', 'The Matrix Resurrections', 2021, 'Lana Wachowski', 'Action, Sci-Fi', 5.7, 320),
  m('tt0076759', 'PG', 'Star Wars: Episode IV - A New Hope', 1977, 'George Lucas', 'Action, Adventure, Fantasy', 8.6, 1480),
  m('tt0080684', 'PG', 'Star Wars: Episode V - The Empire Strikes Back', 1980, 'Irvin Kershner', 'Action, Adventure, Fantasy', 8.7, 1400),
  m('tt0086190', 'PG', 'Star Wars: Episode VI - Return of the Jedi', 1983, 'Richard Marquand', 'Action, Adventure, Fantasy', 8.3, 1150),
  m('tt0120915', 'PG', 'Star Wars: Episode I - The Phantom Menace', 1999, 'George Lucas', 'Action, Adventure, Fantasy', 6.5, 870),
  m('tt2488496', 'PG-13', 'Star Wars: Episode VII - The Force Awakens', 2015, 'J.J. Abrams', 'Action, Adventure, Sci-Fi', 7.8, 980),
  m('tt0796366', 'PG-13', 'Star Trek', 2009, 'J.J. Abrams', 'Action, Adventure, Sci-Fi', 7.9, 630),
  m('tt1408101', 'PG-13', 'Star Trek Into Darkness', 2013, 'J.J. Abrams', 'Action, Adventure, Sci-Fi', 7.7, 500),
  m('tt0084726', 'PG', 'Star Trek II: The Wrath of Khan', 1982, 'Nicholas Meyer', 'Action, Adventure, Sci-Fi', 7.7, 130),
  m('tt1517451', 'R', 'A Star Is Born', 2018, 'Bradley Cooper', 'Drama, Music, Romance', 7.6, 420),
  m('tt0063350', 'Unrated', 'Night of the Living Dead', 1968, 'George A. Romero', 'Horror, Thriller', 7.8, 140),
  m('tt0087800', 'R', 'A Nightmare on Elm Street', 1984, 'Wes Craven', 'Horror', 7.4, 270),
  m('tt0477347', 'PG', 'Night at the Museum', 2006, 'Shawn Levy', 'Adventure, Comedy, Family', 6.5, 380),
  m('tt0048424', 'Approved', 'The Night of the Hunter', 1955, 'Charles Laughton', 'Crime, Drama, Film-Noir', 8.0, 100),
  m('tt2872718', 'R', 'Nightcrawler', 2014, 'Dan Gilroy', 'Crime, Drama, Thriller', 7.8, 600),
  m('tt0314331', 'R', 'Love Actually', 2003, 'Richard Curtis', 'Comedy, Drama, Romance', 7.6, 530),
  m('tt1570728', 'PG-13', 'Crazy, Stupid, Love.', 2011, 'Glenn Ficarra, John Requa', 'Comedy, Drama, Romance', 7.4, 540),
  m('tt0138097', 'R', 'Shakespeare in Love', 1998, 'John Madden', 'Comedy, Drama, History', 7.1, 240),
  m('tt0118799', 'PG-13', 'Life Is Beautiful', 1997, 'Roberto Benigni', 'Comedy, Drama, Romance', 8.6, 740, 'Italian, German, English', 'Italy'),
  m('tt0068646', 'R', 'The Godfather', 1972, 'Francis Ford Coppola', 'Crime, Drama', 9.2, 2000),
  m('tt0111161', 'R', 'The Shawshank Redemption', 1994, 'Frank Darabont', 'Drama', 9.3, 2900),
  m('tt0110912', 'R', 'Pulp Fiction', 1994, 'Quentin Tarantino', 'Crime, Drama', 8.9, 2200),
  m('tt1375666', 'PG-13', 'Inception', 2010, 'Christopher Nolan', 'Action, Adventure, Sci-Fi', 8.8, 2550),
  m('tt0137523', 'R', 'Fight Club', 1999, 'David Fincher', 'Drama', 8.8, 2330),
  m('tt0109830', 'PG-13', 'Forrest Gump', 1994, 'Robert Zemeckis', 'Drama, Romance', 8.8, 2260),
  m('tt0816692', 'PG-13', 'Interstellar', 2014, 'Christopher Nolan', 'Adventure, Drama, Sci-Fi', 8.7, 2100),
  m('tt0172495', 'R', 'Gladiator', 2000, 'Ridley Scott', 'Action, Adventure, Drama', 8.5, 1600),
  m('tt0120338', 'PG-13', 'Titanic', 1997, 'James Cameron', 'Drama, Romance', 7.9, 1300),
  m('tt0073195', 'PG', 'Jaws', 1975, 'Steven Spielberg', 'Adventure, Thriller', 8.1, 650),
  m('tt0078748', 'R', 'Alien', 1979, 'Ridley Scott', 'Horror, Sci-Fi', 8.5, 950),
  m('tt0090605', 'R', 'Aliens', 1986, 'James Cameron', 'Action, Adventure, Sci-Fi', 8.4, 760),
  m('tt0409847', 'PG-13', 'Cowboys & Aliens', 2011, 'Jon Favreau', 'Action, Sci-Fi, Thriller', 6.0, 230),
  m('tt0083658', 'R', 'Blade Runner', 1982, 'Ridley Scott', 'Action, Drama, Sci-Fi', 8.1, 820),
  m('tt0034583', 'PG', 'Casablanca', 1942, 'Michael Curtiz', 'Drama, Romance, War', 8.5, 600),
  m('tt0052357', 'PG', 'Vertigo', 1958, 'Alfred Hitchcock', 'Mystery, Romance, Thriller', 8.3, 420),
  m('tt0054215', 'R', 'Psycho', 1960, 'Alfred Hitchcock', 'Horror, Mystery, Thriller', 8.5, 720),
  m('tt0033467', 'PG', 'Citizen Kane', 1941, 'Orson Welles', 'Drama, Mystery', 8.3, 460),
  m('tt0088763', 'PG', 'Back to the Future', 1985, 'Robert Zemeckis', 'Adventure, Comedy, Sci-Fi', 8.5, 1300),
  m('tt0107290', 'PG-13', 'Jurassic Park', 1993, 'Steven Spielberg', 'Action, Adventure, Sci-Fi', 8.2, 1050),
  m('tt0120737', 'PG-13', 'The Lord of the Rings: The Fellowship of the Ring', 2001, 'Peter Jackson', 'Action, Adventure, Drama', 8.9, 2000),
  m('tt0167260', 'PG-13', 'The Lord of the Rings: The Return of the King', 2003, 'Peter Jackson', 'Action, Adventure, Drama', 9.0, 2000),
  m('tt0848228', 'PG-13', 'The Avengers', 2012, 'Joss Whedon', 'Action, Sci-Fi', 8.0, 1480),
  // Same title as the 2012 film: `t=The Avengers` answers the more popular one, `y=1998` the other.
  m('tt0118661', 'PG-13', 'The Avengers', 1998, 'Jeremiah S. Chechik', 'Action, Adventure, Sci-Fi', 3.8, 44),
  m('tt0325980', 'PG-13', 'Pirates of the Caribbean: The Curse of the Black Pearl', 2003, 'Gore Verbinski', 'Action, Adventure, Fantasy', 8.1, 1200),
  m('tt0114369', 'R', 'Se7en', 1995, 'David Fincher', 'Crime, Drama, Mystery', 8.6, 1800),
  m('tt0102926', 'R', 'The Silence of the Lambs', 1991, 'Jonathan Demme', 'Crime, Drama, Thriller', 8.6, 1500),
  m('tt0245429', 'PG', 'Spirited Away', 2001, 'Hayao Miyazaki', 'Animation, Adventure, Family', 8.6, 830, 'Japanese', 'Japan'),
  m('tt6751668', 'R', 'Parasite', 2019, 'Bong Joon Ho', 'Drama, Thriller', 8.5, 950, 'Korean, English', 'South Korea'),
  m('tt0047478', 'Not Rated', 'Seven Samurai', 1954, 'Akira Kurosawa', 'Action, Drama', 8.6, 370, 'Japanese', 'Japan'),
  m('tt0050083', 'Approved', '12 Angry Men', 1957, 'Sidney Lumet', 'Crime, Drama', 9.0, 900),
];

export const KNOWN_SERIES: KnownSeries[] = [
  {
    id: 'tt0944947', title: 'Game of Thrones', rated: 'TV-MA', year: 2011, endYear: 2019, creators: 'David Benioff, D.B. Weiss',
    genre: 'Action, Adventure, Drama', rating: 9.2, votesK: 2300, seasons: [10, 10, 10, 10, 10, 10, 7, 6],
    episodeTitles: [[
      'Winter Is Coming', 'The Kingsroad', 'Lord Snow', 'Cripples, Bastards, and Broken Things', 'The Wolf and the Lion',
      'A Golden Crown', 'You Win or You Die', 'The Pointy End', 'Baelor', 'Fire and Blood',
    ]],
    pilot: { id: 'tt1480055', released: '2011-04-17', rating: '8.9' },
  },
  {
    id: 'tt0903747', title: 'Breaking Bad', rated: 'TV-MA', year: 2008, endYear: 2013, creators: 'Vince Gilligan',
    genre: 'Crime, Drama, Thriller', rating: 9.5, votesK: 2200, seasons: [7, 13, 13, 13, 16],
    episodeTitles: [[
      'Pilot', "Cat's in the Bag...", "...And the Bag's in the River", 'Cancer Man', 'Gray Matter',
      "Crazy Handful of Nothin'", 'A No-Rough-Stuff-Type Deal',
    ]],
  },
  {
    // Same title as the 1989 film: `t=Batman&type=series` (or `y=1967`) reaches it.
    id: 'tt0059968', title: 'Batman', rated: 'TV-G', year: 1966, endYear: 1968, creators: 'William Dozier',
    genre: 'Action, Adventure, Comedy', rating: 7.5, votesK: 26, seasons: [34, 60, 26],
  },
  {
    id: 'tt0103359', title: 'Batman: The Animated Series', rated: 'TV-Y7', year: 1992, endYear: 1995, creators: 'Bob Kane, Eric Radomski, Bruce Timm',
    genre: 'Animation, Action, Adventure', rating: 9.0, votesK: 120, seasons: [65, 20],
  },
  {
    id: 'tt0092455', title: 'Star Trek: The Next Generation', rated: 'TV-PG', year: 1987, endYear: 1994, creators: 'Gene Roddenberry',
    genre: 'Action, Adventure, Mystery', rating: 8.7, votesK: 150, seasons: [25, 22, 26, 26, 26, 26, 26],
  },
  {
    id: 'tt0458290', title: 'Star Wars: The Clone Wars', rated: 'TV-PG', year: 2008, endYear: 2020, creators: 'George Lucas',
    genre: 'Animation, Action, Adventure', rating: 8.4, votesK: 110, seasons: [22, 22, 22, 22, 20, 13, 12],
  },
  {
    id: 'tt8111088', title: 'The Mandalorian', rated: 'TV-14', year: 2019, endYear: null, creators: 'Jon Favreau',
    genre: 'Action, Adventure, Fantasy', rating: 8.6, votesK: 600, seasons: [8, 8, 8],
  },
  {
    id: 'tt9561862', title: 'Love, Death & Robots', rated: 'TV-MA', year: 2019, endYear: null, creators: 'Tim Miller',
    genre: 'Animation, Action, Comedy', rating: 8.4, votesK: 210, seasons: [18, 8, 9],
  },
  {
    id: 'tt4574334', title: 'Stranger Things', rated: 'TV-14', year: 2016, endYear: null, creators: 'Matt Duffer, Ross Duffer',
    genre: 'Drama, Fantasy, Horror', rating: 8.7, votesK: 1400, seasons: [8, 9, 8, 9],
  },
  {
    id: 'tt2861424', title: 'Rick and Morty', rated: 'TV-MA', year: 2013, endYear: null, creators: 'Dan Harmon, Justin Roiland',
    genre: 'Animation, Adventure, Comedy', rating: 9.1, votesK: 600, seasons: [11, 10, 10, 10, 10, 10, 10],
  },
  {
    id: 'tt0475784', title: 'Westworld', rated: 'TV-MA', year: 2016, endYear: 2022, creators: 'Lisa Joy, Jonathan Nolan',
    genre: 'Drama, Mystery, Sci-Fi', rating: 8.5, votesK: 530, seasons: [10, 10, 8, 8],
  },
  {
    // A one-year miniseries: OMDb writes its Year as a single year.
    id: 'tt7366338', title: 'Chernobyl', rated: 'TV-MA', year: 2019, endYear: 2019, creators: 'Craig Mazin',
    genre: 'Drama, History, Thriller', rating: 9.3, votesK: 900, seasons: [5],
  },
];
