/**
 * Every site adapter, one file each under `sites/`. Adding an adapter is one file plus its line
 * here; the catalog test fails when a file in `sites/` is not listed, or an adapter does not
 * match its own examples.
 */

import type { SiteAdapter } from "./site-adapter.js";
import airbnb from "./sites/airbnb.js";
import amazon from "./sites/amazon.js";
import awsConsole from "./sites/aws-console.js";
import bank from "./sites/bank.js";
import bloomberg from "./sites/bloomberg.js";
import booking from "./sites/booking.js";
import cloudflare from "./sites/cloudflare.js";
import coinbase from "./sites/coinbase.js";
import discord from "./sites/discord.js";
import douyin from "./sites/douyin.js";
import ebay from "./sites/ebay.js";
import economist from "./sites/economist.js";
import etsy from "./sites/etsy.js";
import expedia from "./sites/expedia.js";
import facebook from "./sites/facebook.js";
import ft from "./sites/ft.js";
import gcpConsole from "./sites/gcp-console.js";
import github from "./sites/github.js";
import gitlab from "./sites/gitlab.js";
import glassdoor from "./sites/glassdoor.js";
import gmail from "./sites/gmail.js";
import googleCalendar from "./sites/google-calendar.js";
import googleDocs from "./sites/google-docs.js";
import googleDrive from "./sites/google-drive.js";
import googleFlights from "./sites/google-flights.js";
import googleSheets from "./sites/google-sheets.js";
import greenhouse from "./sites/greenhouse.js";
import hackernews from "./sites/hackernews.js";
import indeed from "./sites/indeed.js";
import instagram from "./sites/instagram.js";
import jira from "./sites/jira.js";
import lever from "./sites/lever.js";
import linkedin from "./sites/linkedin.js";
import linkedinJobs from "./sites/linkedin-jobs.js";
import medium from "./sites/medium.js";
import notion from "./sites/notion.js";
import nytimes from "./sites/nytimes.js";
import outlook from "./sites/outlook.js";
import paypal from "./sites/paypal.js";
import reddit from "./sites/reddit.js";
import robinhood from "./sites/robinhood.js";
import shopifyAdmin from "./sites/shopify-admin.js";
import slack from "./sites/slack.js";
import stackoverflow from "./sites/stackoverflow.js";
import stripe from "./sites/stripe.js";
import substack from "./sites/substack.js";
import teams from "./sites/teams.js";
import telegram from "./sites/telegram.js";
import trello from "./sites/trello.js";
import vercel from "./sites/vercel.js";
import walmart from "./sites/walmart.js";
import washingtonpost from "./sites/washingtonpost.js";
import whatsapp from "./sites/whatsapp.js";
import wise from "./sites/wise.js";
import workday from "./sites/workday.js";
import wsj from "./sites/wsj.js";
import x from "./sites/x.js";
import youtube from "./sites/youtube.js";

export const SITE_ADAPTERS: readonly SiteAdapter[] = [
  github,
  gitlab,
  stackoverflow,
  hackernews,
  awsConsole,
  gcpConsole,
  cloudflare,
  vercel,
  gmail,
  outlook,
  googleDocs,
  googleSheets,
  googleCalendar,
  googleDrive,
  notion,
  jira,
  trello,
  x,
  linkedin,
  reddit,
  youtube,
  facebook,
  instagram,
  medium,
  substack,
  slack,
  discord,
  whatsapp,
  telegram,
  teams,
  douyin,
  amazon,
  ebay,
  etsy,
  walmart,
  shopifyAdmin,
  booking,
  airbnb,
  expedia,
  googleFlights,
  stripe,
  paypal,
  wise,
  coinbase,
  robinhood,
  bank,
  nytimes,
  wsj,
  ft,
  bloomberg,
  economist,
  washingtonpost,
  linkedinJobs,
  indeed,
  glassdoor,
  greenhouse,
  lever,
  workday,
];
