import type { TInfoPanelItem } from '@persona/contract';

export type FunctionHelpKey = 'page' | 'template' | 'name' | 'code' | 'approvalStatus';

/** What the info panel says about each field of the Functions page. */
export const functionHelp: Record<FunctionHelpKey, TInfoPanelItem> = {
  page: {
    title: 'Functions',
    description:
      'Functions are small python programs your avatars can call in the middle of a conversation: look up an order, book a table, fetch the weather. The language model decides when to call one, from its name, its parameters and its docstring, and uses what it returns in its answer.',
    possibleValues: [
      { name: 'Create', type: 'action', description: 'Pick a template, give the function a File Name and write its code.' },
      { name: 'Edit', type: 'action', description: 'Open a function from the list to change its name or code.' },
      { name: 'Delete', type: 'action', description: 'Removes the function and unlinks it from every avatar that uses it.' },
    ],
    usefulness:
      'Functions let an avatar act on live data instead of only talking. Every function is reviewed by a moderator before any avatar can run it, so your visitors only ever trigger code that someone has read.',
  },
  template: {
    title: 'Function template',
    description: 'The starting point of a new function. Every template is complete, working python you can save as it is and then adapt.',
    possibleValues: [
      { name: 'Empty function canvas', type: 'template', description: 'The bare structure: one function with a typed parameter, a docstring and a return value.' },
      { name: 'Example template', type: 'template', description: 'Splits a restaurant bill: parameters with defaults, input checks and a structured result.' },
      { name: 'Weather', type: 'template', description: 'Calls a public web service (Open-Meteo) and returns the current weather for a city.' },
      { name: 'SSML', type: 'template', description: 'Returns SSML so the voice adds emphasis, pauses and a speaking rate.' },
    ],
    usefulness: 'Starting from a template that already follows the rules (entry function, docstring, typed parameters) is the fastest way to a function that passes review.',
  },
  name: {
    title: 'File Name',
    description:
      'The name of the function file. It must also be the name of the function the avatar calls: a File Name of get_weather (or get_weather.py) runs def get_weather(...) in your code.',
    possibleValues: [
      { name: 'Letters, digits, _', type: 'text', description: 'Starts with a letter or underscore; at most 64 characters; .py at the end is optional.' },
      { name: 'Unique', type: 'rule', description: 'Each function of your account needs its own File Name.' },
    ],
    usefulness: 'The language model sees this name when it decides what to call, so a clear name such as book_table helps it pick the right function at the right moment.',
  },
  code: {
    title: 'Code',
    description:
      'Python 3 code defining the entry function named like the File Name. Its docstring tells the language model what the function does and when to call it; its typed parameters are what the model fills in. Return text, or data that can be turned into JSON. Helper functions and imports of the standard library are fine.',
    possibleValues: [
      { name: 'Language', type: 'python', description: 'Only python is supported.' },
      { name: 'Syntax check', type: 'on save', description: 'The code is parsed when you save; a syntax error is reported with its line and column and nothing is stored.' },
      { name: 'Size', type: 'limit', description: 'At most 100,000 characters.' },
    ],
    usefulness: 'Changing the code of an approved function sends it back to Pending: moderators approve the exact code they read, so a changed function waits for another review before avatars use it again.',
  },
  approvalStatus: {
    title: 'Approval Status',
    description: 'Where the function is in moderation. Only approved functions can be linked to avatars and run in conversations.',
    possibleValues: [
      { name: 'Pending', type: '0', description: 'Waiting for a moderator. New functions and functions whose code changed start here.' },
      { name: 'Approved', type: '1', description: 'Reviewed and allowed: link it to avatars in the Avatar Creator (Brain › Functions).' },
      { name: 'Rejected', type: '2', description: 'Not allowed; the reason is shown with the function and was e-mailed to you. Change the code and save to ask again.' },
    ],
    usefulness: 'You receive an e-mail when a moderator decides, so you know when a function is ready to use or what to change.',
  },
};
