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

// code canonical_name alias…   Zulip's names for the emoji whose names differ from iamcal's short
// names (an emoji not listed here is named by its iamcal short names). Facts from Zulip's own
// name table (name_to_codepoint); flags and other sequences keep iamcal's names.
const ZULIP_NAMES = `
1f44d +1 thumbs_up like
1f44e -1 thumbs_down
1f4af 100 hundred
1f522 1234 numbers
1f521 abcd alphabet
267f accessible wheelchair disabled
1f3ac action
1f6a1 aerial_tramway ski_lift
2697 alchemy alembic
1f47d alien ufo
1f3c8 american_football
1f4a2 anger bam pow
1f5ef anger_bubble
1f63e angry_cat pouting_cat
1f62b anguish
1f627 anguished pained
1f42a arabian_camel
1f5c3 archive
1f3a8 art palette painting
002a-20e3 asterisk
2692 at_work hammer_and_pick
1f45f athletic_shoe sneaker running_shoe
269b atom physics
1f6bc baby_change_station nursery
1f392 backpack satchel
1f3f8 badminton
1f956 baguette
26f9 ball sports
1f388 balloon celebration
1f5f3 ballot_box
203c bangbang double_exclamation
1f488 barber striped_pole
1f50b battery full_battery
1f3d6 beach
26f1 beach_umbrella
1f6cf bed bedroom
1f41d bee buzz honeybee
1f41e beetle ladybug
1f6ce bellhop_bell reception services ding
1f604 smile big_smile
1f6b2 bike bicycle
1f3b1 billiards pool 8_ball
2623 biohazard
1f533 black_and_white_square
1f94b black_belt keikogi dogi martial_arts
1f3f4 black_flag
1f535 blue_circle
1f4a5 boom explosion crash collision
1f3f9 bow_and_arrow archery
1f470 bride
1f309 bridge
1f506 brightness high_brightness
1f494 broken_heart heartache
1f41b bug caterpillar
1f685 bullet_train
1f430 bunny
1f68c bus school_bus
1f68f bus_stop
1f4c5 calendar
1f42e calf
1f919 call_me
1f3d5 campsite
1f520 capital_abcd capital_letters
1f3a0 carousel merry_go_round
1f38f carp_streamer flags
1f4d0 carpenter_square triangular_ruler
1f938 cartwheel acrobatics gymnastics tumbling
1f3f0 castle
1f408 cat meow
1f4f6 cell_reception signal_strength signal_bars
1f4c8 chart upwards_trend growing increasing
2705 check all_good approved
2714 check_mark
2611 checkbox
1f3c1 checkered_flag race go start
1f9c0 cheese
1f424 chick baby_chick
1f414 chicken cluck
1f6b8 children_crossing school_crossing drive_with_care
1f36b chocolate
1f3a6 cinema movie_theater
2b55 circle
1f3aa circus
1f3d9 city skyline
1f44f clap applause
1f942 clink toast
1f503 clockwise
1f4ea closed_mailbox
1f45a clothing
2601 cloud overcast
1f325 cloudy
1f921 clown
26b0 coffin burial grave
2604 comet meteor
1f5dc compression vise
1f4bb computer laptop
1f5b1 computer_mouse
1f38a confetti party_ball
1f616 confounded agony
1f3d7 construction
1f373 cooking
1f33d corn maize
1f504 counterclockwise return
1f404 cow
1f920 cowboy
1f58d crayon
1f4b3 credit_card debit_card
1f3cf cricket cricket_bat
271d cross christianity
274c cross_mark incorrect wrong
1f38c crossed_flags solidarity
1f451 crown queen king
1f63f crying_cat
1f52e crystal_ball oracle future fortune_telling
1f498 cupid smitten heart_arrow
1f36e custard flan
1f4a0 cute kawaii diamond_with_a_dot
1f6b4 cyclist
1f300 cyclone hurricane typhoon
1f5e1 dagger rated_for_violence
1f57a dancing disco
1f4c6 date
1f4d4 decorative_notebook
1f3da derelict_house condemned
1f575 detective spy sleuth agent sneaky
1f47f devil imp angry_devil
1f3b2 dice die
1f3af direct_hit darts bulls_eye
2797 division divide
1f635 dizzy
1f4c4 document paper file page
1f415 dog woof
1f4b5 dollar_bills
1f4b2 dollars
1f959 doner_kebab shawarma souvlaki stuffed_flatbread
1f369 donut doughnut
1f42d dormouse
23ec double_down fast_down
27bf double_loop voicemail
23eb double_up fast_up
1f54a dove dove_of_peace
2b07 down south
1f53d downvote down_button decrease
1f4c9 downwards_trend shrinking decreasing
1f924 drooling
1f4a7 drop water_drop
1f941 drum
1f357 drumstick poultry
2694 duel swords
2734 eight_pointed_star
2709 email envelope mail
1f4b6 euro_banknotes
1f4b1 exchange
1f625 exhausted disappointed_relieved stressed
1f440 eyes looking
1f628 fear scared shock
1f93a fencing
1f3d1 field_hockey
1f39e film
1f91e fingers_crossed
1f525 fire lit hot flame
1f692 fire_truck fire_engine
1f947 first_place gold number_one
1f3a3 fishing
270a fist power
1f44a fist_bump punch
1f527 fixing wrench
1f633 flushed embarrassed blushing
1f32b fog hazy
1f4c2 folder
1f372 food soup stew
26bd football soccer
1f463 footprints feet
1f374 fork_and_knife eating_utensils
21aa forward right_hook
1f58b fountain_pen
1f98a fox
26c4 frosty
1f641 frown slight_frown
26fd fuel_pump gas_pump petrol_pump
26b1 funeral_urn cremation
2699 gear settings mechanical engineer
1f48e gem crystal
1f47b ghost boo spooky haunted
1f381 gift present
1f453 glasses spectacles
1f31f glowing_star
1f47a goblin
1f4bd gold_record minidisc
1f3cc golf
1f6a0 gondola mountain_cableway
1f31b goodnight
1f945 gooooooooal goal
1f393 graduate mortar_board
1f49a green_heart envy
1f7e9 green_large_square
1f62c grimacing nervous anxious
1f600 grinning happy
1f601 grinning_face_with_smiling_eyes
1f472 gua_pi_mao
1f482 guard
1f528 hammer maintenance handyman handywoman
1f91d handshake done_deal
1f33e harvest ear_of_rice
1f452 hat
1f423 hatching hatching_chick
2935 heading_down
2934 heading_up
1f4f0 headlines
2764 heart love love_you
1f49f heart_box
2763 heart_exclamation
1f60d heart_eyes in_love
1f618 heart_kiss blow_a_kiss
1f497 heart_pulse growing_heart
26d1 helmet hard_hat rescue_worker safety_first invincible
1f33f herb plant
1f590 high_five palm
1f460 high_heels
1f684 high_speed_train
26a1 high_voltage zap
26f3 hole_in_one
1f384 holiday_tree
1f36f honey
1f6a5 horizontal_traffic_light
1f4ef horn
1f40e horse
1f3c7 horse_racing horse_riding
1f336 hot_pepper chili_pepper
2668 hot_springs
1f3d8 houses
1f917 hug arms_open
1f40b humpback_whale
1f37d hungry meal table_setting fork_and_knife_with_plate lets_eat
1f915 hurt head_bandage injured
1f368 ice_cream gelato
1f3d2 ice_hockey
1f6cc in_bed accommodations guestrooms
1f4e5 inbox
1f4ed inbox_zero empty_mailbox no_mail
2139 info
1f481 information_desk_person person_tipping_hand
1f489 injection syringe
1f607 innocent halo
1f3dd island
1f383 jack-o-lantern pumpkin
1f3e3 japan_post
1f251 japanese_acceptable_button accept
1f238 japanese_application_button u7533
1f250 japanese_bargain_button ideograph_advantage
3297 japanese_congratulations_button congratulations
1f239 japanese_discount_button u5272
1f21a japanese_free_of_charge_button u7121
1f237 japanese_monthly_amount_button u6708
1f235 japanese_no_vacancy_button u6e80
1f236 japanese_not_free_of_charge_button u6709
1f23a japanese_open_for_business_button u55b6
1f234 japanese_passing_grade_button u5408
1f232 japanese_prohibited_button u7981
3299 japanese_secret_button secret
1f456 jeans denim
1f0cf joker
1f602 joy tears laughter_tears
1f579 joystick arcade
2696 justice scales balance
1f6f4 kick_scooter
1f617 kiss
1f619 kiss_smiling_eyes
1f61a kiss_with_blush
1f431 kitten
1f95d kiwi
1f52a knife hocho betrayed
1f3f7 label tag price_tag
1f6ec landing arrival airplane_arrival
1f4de landline home_phone
1f3ee lantern izakaya_lantern
1f606 laughing lol
1f343 leaves wind fall
1f4d2 ledger spiral_notebook
2b05 left west
1f91b left_fist
2194 left_right swap
1f574 levitating hover
1f3cb lift work_out weight_lift gym
1f4a1 light_bulb bulb idea
1f329 lightning lightning_storm
1f981 lion
1f444 lips mouth
1f48b lipstick_kiss
1f6cb living_room furniture couch_and_lamp lifestyles
1f98e lizard gecko
1f512 locked
1f6c5 locker locked_bag
27b0 loop
1f4b8 losing_money easy_come_easy_go money_with_wings
1f50a louder sound
1f4e2 loudspeaker bullhorn
1f505 low_brightness dim
2199 lower_left south_west
2198 lower_right south_east
1f340 lucky four_leaf_clover
1f925 lying
1f4ee mail_dropoff
1f4e8 mail_received
1f4e9 mail_sent sealed
1f46b man_and_woman_holding_hands man_and_woman_couple
1f5fa map world_map road_trip
1f356 meat
1f3c5 medal
1f48a medicine pill
1f4e3 megaphone shout
1f4dd memo note
1f54e menorah
24c2 metro m
1f3a4 microphone mike mic
1f396 military_medal
1f95b milk glass_of_milk
1f30c milky_way night_sky
26cf mine pick
2796 minus subtract
1f4f1 mobile_phone smartphone iphone android
1f4b0 money
1f911 money_face kaching
1f69d monorail elevated_train
1f319 moon
1f391 moon_ceremony
1f31d moon_face
1f936 mother_christmas mrs_claus
1f3cd motorcycle
1f6b5 mountain_biker
1f304 mountain_sunrise
1f401 mouse
1f69a moving_truck
2716 multiplication multiply
1f3b5 music
1f3b6 musical_notes
1f507 mute no_sound
1f515 mute_notifications
1f485 nail_polish nail_care
1f365 naruto
1f922 nauseated queasy
1f913 nerd geek
1f610 neutral
1f425 new_baby
1f31a new_moon_face
1f5de newspaper swat
23ed next_track skip_forward
1f303 night
26d4 no_entry wrong_way
1f4f5 no_phones
1f645 no_signal nope
1f4d3 notebook composition_book
1f514 notifications bell
1f529 nut_and_bolt screw
1f17e o
1f587 office_supplies paperclip_chain linked
1f479 ogre
1f615 oh_no half_frown concerned confused
1f6e2 oil_drum commodities
1f44c ok got_it
1f646 ok_signal
1f474 older_man elderly_man
1f475 older_woman elderly_woman
1f549 om hinduism
1f698 oncoming_car oncoming_automobile
1f686 oncoming_train
1f68a oncoming_tram oncoming_streetcar oncoming_trolley
1f359 onigiri
1f62e open_mouth surprise
1f34a orange tangerine mandarin
1f4c1 organize file_folder
1f4e4 outbox
1f402 ox bull
1f958 paella
1f58c paintbrush
1f95e pancakes breakfast
1f43c panda
1f4ce paperclip attachment
1f17f parking p
303d part_alternation
26c5 partly_sunny partly_cloudy
1f3ab pass
1f6f3 passenger_ship yacht cruise
1f6c2 passport_control immigration
23f8 pause
1f43e paw_prints paws
262e peace
270c peace_sign victory
1f58a pen ballpoint_pen
270f pencil
1f614 pensive tired
1f3ad performing_arts drama theater
1f623 persevere helpless
1f64e person_pouting
1f4f4 phone_off
1f3b9 piano musical_keyboard
1f5bc picture framed_picture
1f416 pig oink
1f437 piglet
1f4cd pin sewing_pin
1f3d3 ping_pong table_tennis
1f4d1 place_holder
25b6 play
23ef play_pause
25c0 play_reverse
1f3b4 playing_cards
2795 plus add
1f446 point_up this
1f46e police cop
1f434 pony
1f4a9 poop pile_of_poo
1f3e4 post_office
1f6b0 potable_water tap_water drinking_water
1f4b7 pound_notes
1f64f pray welcome thank_you namaste
1f930 pregnant expecting
23ee previous_track skip_back
1f50f privacy key_signing digital_security protected
1f6ab prohibited not_allowed
1f4fd projector movie
1f436 puppy
1f49c purple_heart bravery
1f4cc push_pin thumb_tack
1f407 rabbit
1f3ce racecar
2622 radioactive nuclear
1f621 rage mad grumpy very_angry
1f683 railway_car train_car
1f6e4 railway_track train_tracks
1f308 rainbow pride lgbtq
1f327 rainy soaked drenched
1f64c raised_hands praise
1f64b raising_hand pick_me
1f35c ramen noodles
1f4c3 receipt
23fa record
1f699 recreational_vehicle jeep
1f4d5 red_book closed_book
1f53b red_triangle_down
1f53a red_triangle_up
21a9 reply left_hook
23ea rewind fast_reverse
1f380 ribbon decoration
27a1 right east
1f91c right_fist
1f6e3 road motorway
1f916 robot
1f5ff rock_carving moyai
1f918 rock_on sign_of_the_horns
1f644 rolling_eyes
1f923 rolling_on_the_floor_laughing rofl
1f4c7 rolodex card_index
1f413 rooster alarm cock-a-doodle-doo
1f6a3 rowboat crew sculling rowing
1f3c9 rugby
1f4cf ruler straightedge
1f3c3 running runner
1f3bd running_shirt
2639 sad big_frown
1f957 salad
1f461 sandal flip_flops
1f52c science microscope scientist
1f6f5 scooter motor_bike
1f640 scream_cat weary_cat
1f50d search find magnifying_glass
1f948 second_place silver
1f5dd secret dungeon old_key encrypted clue hint
1f510 secure lock_with_key safe commitment loyalty
1f331 seedling sprout
1f4ab seeing_stars
1f358 senbei rice_cracker
2618 shamrock clover
1f411 sheep baa
1f41a shell seashell conch spiral_shell
1f3ef shiro
1f45e shoe
1f320 shooting_star wish
1f6d2 shopping_cart shopping_trolley
1f500 shuffle
1f912 sick flu face_with_thermometer ill fever
1f910 silence quiet hush zip_it lips_are_sealed
1f464 silhouette shadow
1f465 silhouettes shadows
1f6a8 siren rotating_light alert
2620 skull_and_crossbones pirate death hazard toxic poison
1f943 small_glass
1f642 slight_smile
1f608 smiling_devil smiling_imp smiling_face_with_horns
263a smiling_face relaxed
1f60f smirk smug
1f63c smirk_cat smug_cat
1f40d snake hiss
1f927 sneezing
1f328 snowy snowstorm
1f3d4 snowy_mountain
1f366 soft_serve soft_ice_cream
1f509 softer
1f5c2 sort
2728 sparkles glamour
1f5e3 speaking_head
1f5e8 speech_bubble
1f636 speechless no_mouth blank poker_face
1f5d2 spiral_notepad
1f596 spock live_long_and_prosper
1f197 squared_ok
1f199 squared_up
262a star_and_crescent islam
2721 star_of_david judaism
1f5fd statue new_york statue_of_liberty
1f4b9 stock_market
1f91a stop
23f9 stop_button
1f6d1 stop_sign octagonal_sign
1f3b3 strike bowling
1f61b stuck_out_tongue mischievous
1f61c stuck_out_tongue_wink joking crazy
1f3e1 suburb
1f687 subway
1f31e sun_face
1f305 sunrise ocean_sunrise
1f306 sunset
1f326 sunshowers sun_and_rain partly_sunny_with_rain
1f3c4 surf
1f3ca swim
1f6eb take_off departure airplane_departure
1f4f8 taking_a_picture say_cheese
1f695 taxi rideshare
1f321 temperature thermometer warm
1f364 tempura
1f51f ten
26fa tent camping
1f914 thinking
1f949 third_place bronze
1f4ad thought dream
26c8 thunderstorm thunder_and_rain
1f39f ticket
1f454 tie
1f405 tiger
1f42f tiger_cub
1f557 time clock
23f3 time_ticking hourglass
23f2 timer
231b times_up hourglass_done
2122 tm trademark
1f3a9 top_hat
1f5fc tower tokyo_tower
1f6a6 traffic_light vertical_traffic_light
1f682 train steam_locomotive
1f68b tram streetcar
1f333 tree deciduous_tree
1f6a9 triangular_flag
1f68e trolley
1f3c6 trophy winner
1f69b truck tractor-trailer big_rig semi_truck transport_truck
1f337 tulip flower
1f473 turban
1f422 turtle tortoise
1f935 tuxedo
1f4fa tv television
1f46c two_men_holding_hands men_couple
1f46d two_women_holding_hands women_couple
2614 umbrella_with_rain
1f4ac umm speech_balloon
1f51e underage nc17
1f984 unicorn
1f513 unlocked
1f4ec unread_mail
2b06 up north
2195 up_down
2196 upper_left north_west
2197 upper_right north_east
1f643 upside_down oops
1f53c upvote up_button increase
1f3fa vase amphora
1f4fc vhs videocassette
1f4f9 video_camera video_recorder
1f39a volume level_slider
261d wait_one_second point_of_information asking_a_question
1f6b6 walking pedestrian
26a0 warning caution danger
1f5d1 wastebasket trash_can
1f44b wave hello hi
1f314 waxing_moon
1f6be wc water_closet
1f629 weary distraught
1f578 web spider_web
2638 wheel_of_dharma buddhism
1f532 white_and_black_square
1f3f3 white_flag surrender
1f940 wilted_flower crushed
1f32c windy mother_nature
1f377 wine
1f38b wish_tree tanabata_tree
1f6a7 work_in_progress construction_zone
1f6e0 working_on_it hammer_and_wrench tools
1f93c wrestling
270d writing
1f310 www globe
274e x
1f360 yam sweet_potato
1f49b yellow_heart heart_of_gold
1f7e8 yellow_large_square
1f4b4 yen_banknotes
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
  // Zulip's own names first: they win over iamcal's where both use a name, and canonical names
  // win over aliases.
  const lines = ZULIP_NAMES.split('\n').map((l) => l.trim().split(/\s+/)).filter((l) => l.length >= 2);
  for (const [code, canonical] of lines) {
    nameByCode.set(code!, canonical!);
    if (!byName.has(canonical!)) byName.set(canonical!, { code: code!, name: canonical! });
  }
  for (const [code, canonical, ...aliases] of lines) for (const n of aliases) if (!byName.has(n)) byName.set(n, { code: code!, name: canonical! });
  for (const e of entries) {
    if (e.has_img_google === false) continue;
    const code = (e.non_qualified || e.unified).toLowerCase();
    // Skin-tone modifiers are not emoji of their own in Zulip.
    if (/^1f3f[b-f]$/.test(code)) continue;
    // Zulip's names use underscores where iamcal's use hyphens (woman_shrugging).
    const names = e.short_names.map((n) => n.replace(/-/g, '_'));
    if (!nameByCode.has(code)) nameByCode.set(code, names[0]!);
    const canonical = nameByCode.get(code)!;
    for (const n of names) if (!byName.has(n)) byName.set(n, { code, name: canonical });
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

/**
 * The server's emoji data as Zulip publishes it at server_emoji_data_url (emoji_api.json):
 * every emoji code with its names, the canonical name first.
 */
export function emojiApiData(): { code_to_names: Record<string, string[]> } {
  const { byName, nameByCode } = data();
  const codeToNames: Record<string, string[]> = {};
  for (const [code, canonical] of nameByCode) codeToNames[code] = [canonical];
  for (const [name, e] of byName) if (name !== e.name) codeToNames[e.code]?.push(name);
  return { code_to_names: codeToNames };
}
