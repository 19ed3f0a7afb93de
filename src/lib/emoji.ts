// Unicode emoji as Zulip names them. The set of emoji and their code points come from the
// emoji-datasource package (iamcal's data, the same source Zulip builds from); Zulip renamed many
// of them, so the table below lists, for the emoji where Zulip's names differ from iamcal's short
// names, Zulip's canonical name first and its aliases after. An emoji's `emoji_code` is its
// code points in lowercase hex joined by "-", without the emoji variation selector (iamcal's
// "non_qualified" form when there is one).
//
// The data (about 1.3 MB of JSON) is read on first use only, and only the two maps are kept.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface UnicodeEmoji {
  code: string;
  name: string;
}

/** Zulip's one extra emoji, reacted with reaction_type "zulip_extra_emoji". */
export const ZULIP_EXTRA_EMOJI = { name: 'zulip', code: 'zulip' } as const;

// code canonical_name alias…   (Zulip's names where they differ from iamcal's short names)
const ZULIP_NAMES = `
1f600 grinning happy
1f603 smiley
1f604 big_smile
1f601 grinning_face_with_smiling_eyes
1f606 laughing lol
1f605 sweat_smile
1f602 joy tears laughter_tears
1f923 rolling_on_the_floor_laughing rofl
263a smile relaxed
1f60a blush
1f607 innocent halo
1f642 slight_smile
1f643 upside_down oops
1f609 wink
1f60c relieved
1f60d heart_eyes in_love
1f618 heart_kiss blow_a_kiss
1f617 kiss
1f619 kiss_smiling_eyes
1f61a kiss_with_blush
1f60b yum
1f61c stuck_out_tongue_wink joking crazy
1f61d stuck_out_tongue
1f61b mischievous
1f911 money_face kaching
1f917 hug arms_open
1f913 nerd geek
1f60e sunglasses
1f921 clown
1f920 cowboy
1f60f smirk smug
1f612 unamused
1f61e disappointed
1f614 pensive tired
1f61f worried
1f615 oh_no half_frown concerned confused
1f641 frown slight_frown
2639 sad big_frown
1f623 persevere helpless
1f616 confounded agony
1f62b anguish
1f629 weary distraught
1f624 triumph
1f620 angry
1f621 rage mad grumpy very_angry
1f636 speechless no_mouth blank poker_face
1f610 neutral
1f611 expressionless
1f62f hushed
1f626 frowning
1f627 anguished pained
1f62e open_mouth surprise
1f632 astonished
1f635 dizzy
1f633 flushed embarrassed blushing
1f631 scream
1f628 fear scared shock
1f630 cold_sweat
1f622 cry
1f625 exhausted disappointed_relieved stressed
1f924 drooling
1f62d sob
1f613 sweat
1f62a sleepy
1f634 sleeping
1f644 rolling_eyes
1f914 thinking
1f925 lying
1f62c grimacing nervous anxious
1f910 silence quiet hush zip_it lips_are_sealed
1f922 nauseated queasy
1f927 sneezing
1f637 cant_talk mask
1f912 sick flu face_with_thermometer
1f915 hurt head_bandage injured
1f608 smiling_devil smiling_imp smiling_face_with_horns
1f47f devil imp angry_devil
1f479 ogre
1f47a goblin
1f4a9 poop pile_of_poo
1f47b ghost boo spooky haunted
1f480 skull
2620 skull_and_crossbones pirate death hazard toxic poison
1f47d alien ufo
1f47e space_invader
1f916 robot
1f383 jack-o-lantern pumpkin
1f63a smiley_cat
1f638 smile_cat
1f639 joy_cat
1f63b heart_eyes_cat
1f63c smirk_cat smug_cat
1f63d kissing_cat
1f640 scream_cat weary_cat
1f63f crying_cat
1f63e angry_cat pouting_cat
1f450 open_hands
1f64c raised_hands praise
1f44f clap applause
1f64f pray welcome thank_you namaste
1f91d handshake done_deal
1f44d +1 thumbs_up like
1f44e -1 thumbs_down
1f44a fist_bump punch
270a fist power
1f91b left_fist
1f91c right_fist
1f91e fingers_crossed
270c peace_sign victory
1f918 rock_on sign_of_the_horns
1f44c ok got_it
1f448 point_left
1f449 point_right
1f446 point_up this
1f447 point_down
261d wait_one_second point_of_information asking_a_question
270b hand raised_hand
1f91a stop
1f590 high_five palm
1f596 spock live_long_and_prosper
1f44b wave hello hi
1f919 call_me
1f4aa muscle
1f595 middle_finger
270d writing
1f933 selfie
1f485 nail_polish nail_care
1f48d ring
1f484 lipstick
1f48b lipstick_kiss
1f444 lips mouth
1f445 tongue
1f442 ear
1f443 nose
1f463 footprints feet
1f441 eye
1f440 eyes looking
1f5e3 speaking_head
1f464 silhouette shadow
1f465 silhouettes shadows
1f476 baby
1f466 boy
1f467 girl
1f468 man
1f469 woman
1f474 older_man elderly_man
1f475 older_woman elderly_woman
1f472 gua_pi_mao
1f473 turban
1f46e police cop
1f477 construction_worker
1f482 guard
1f4af 100 hundred
1f522 1234 numbers
1f521 abcd alphabet
267f accessible wheelchair disabled
1f3ac action
1f6a1 aerial_tramway ski_lift
2697 alchemy alembic
1f4a2 anger bam pow
1f5ef anger_bubble
1f42a arabian_camel
1f5c3 archive
1f3a8 art palette painting
002a-20e3 asterisk
2692 at_work hammer_and_pick
1f45f athletic_shoe sneaker running_shoe
269b atom physics
1f6bc baby_change_station nursery
1f392 backpack satchel
26f9 ball sports
1f388 balloon celebration
203c bangbang double_exclamation
1f488 barber striped_pole
1f50b battery full_battery
1f6cf bed bedroom
1f41d bee buzz honeybee
1f41e beetle ladybug
1f6ce bellhop_bell reception services ding
1f6b2 bike bicycle
1f3b1 billiards pool 8_ball
1f94b black_belt keikogi dogi martial_arts
1f33c blossom
1f535 blue_circle
26f5 boat sailboat
1f4d6 book open_book
1f4a5 boom explosion crash collision
1f647 bow
1f3f9 bow_and_arrow archery
1f506 brightness high_brightness
1f494 broken_heart heartache
1f41b bug caterpillar
1f430 bunny
1f68c bus school_bus
1f42e calf
1f4f2 calling
1f520 capital_abcd capital_letters
1f3a0 carousel merry_go_round
1f38f carp_streamer flags
1f4d0 carpenter_square triangular_ruler
1f938 cartwheel acrobatics gymnastics tumbling
1f408 cat meow
1f4f6 cell_reception signal_strength signal_bars
1f4c8 chart upwards_trend growing increasing
2705 check all_good approved
2714 check_mark
2611 checkbox
1f3c1 checkered_flag race go start
1f424 chick baby_chick
1f414 chicken cluck
1f6b8 children_crossing school_crossing drive_with_care
1f3a6 cinema movie_theater
2b55 circle
1f3d9 city skyline
1f942 clink toast
1f45a clothing
2601 cloud overcast
1f325 cloudy
26b0 coffin burial grave
2604 comet meteor
1f5dc compression vise
1f4bb computer laptop
1f38a confetti party_ball
1f3d7 construction
1f373 cooking
1f33d corn maize
1f504 counterclockwise return
1f4b3 credit_card debit_card
1f3cf cricket cricket_bat
271d cross christianity
274c cross_mark incorrect wrong
1f38c crossed_flags solidarity
1f451 crown queen king
1f52e crystal_ball oracle future fortune_telling
1f498 cupid smitten heart_arrow
1f36e custard flan
1f4a0 cute kawaii diamond_with_a_dot
1f6b4 cyclist
1f300 cyclone hurricane typhoon
1f5e1 dagger rated_for_violence
1f57a dancing disco
1f4d4 decorative_notebook
1f3da derelict_house condemned
1f575 detective spy sleuth agent sneaky
1f3b2 dice die
1f3af direct_hit darts bulls_eye
2797 division divide
1f4c4 document paper file page
1f415 dog woof
1f4b5 dollar_bills
1f4b2 dollars
1f42c dolphin flipper
1f959 doner_kebab shawarma souvlaki stuffed_flatbread
1f369 donut doughnut
1f42d dormouse
23ec double_down fast_down
2764 heart love love_you
1f389 tada
1f419 octopus
1f525 fire lit hot flame
`;

interface EmojiTables {
  byName: Map<string, UnicodeEmoji>;
  nameByCode: Map<string, string>;
}

let tables: EmojiTables | undefined;

interface DatasourceEntry {
  unified: string;
  non_qualified?: string | null;
  short_name: string;
  short_names: string[];
  has_img_google?: boolean;
}

function load(): EmojiTables {
  const path = createRequire(import.meta.url).resolve('emoji-datasource/emoji.json');
  const entries = JSON.parse(readFileSync(path, 'utf8')) as DatasourceEntry[];
  const byName = new Map<string, UnicodeEmoji>();
  const nameByCode = new Map<string, string>();
  // Zulip's own names first: they win over iamcal's where both use a name.
  for (const line of ZULIP_NAMES.split('\n')) {
    const [code, canonical, ...aliases] = line.trim().split(/\s+/);
    if (!code || !canonical) continue;
    nameByCode.set(code, canonical);
    for (const n of [canonical, ...aliases]) if (!byName.has(n)) byName.set(n, { code, name: canonical });
  }
  for (const e of entries) {
    if (e.has_img_google === false) continue;
    const code = (e.non_qualified || e.unified).toLowerCase();
    if (!nameByCode.has(code)) nameByCode.set(code, e.short_name);
    const canonical = nameByCode.get(code)!;
    for (const n of e.short_names) if (!byName.has(n)) byName.set(n, { code, name: canonical });
  }
  return { byName, nameByCode };
}

function data(): EmojiTables {
  return (tables ??= load());
}

/** The emoji a Zulip name (canonical or alias) stands for, with its canonical name. */
export function unicodeEmojiByName(name: string): UnicodeEmoji | undefined {
  return data().byName.get(name);
}

/** Zulip's canonical name of the emoji with this code. */
export function canonicalNameForCode(code: string): string | undefined {
  return data().nameByCode.get(code);
}

export function isKnownUnicodeCode(code: string): boolean {
  return data().nameByCode.has(code);
}
