/**
 * What a visitor says to any avatar, whatever its subject: greetings, small talk, questions about
 * the avatar, requests for help, yes and no, thanks and goodbyes, numbers, days and times. The
 * offline recogniser's avatar model (language-model.ts) is built from this and the avatar's own
 * texts. Written for this project (not taken from a corpus); it must not be tuned to the WER
 * bench's sentences (bench/wer.mjs), which it does not contain.
 */
export const CONVERSATION_CORPUS = `
Hi. Hello. Hey there. Hi there, how's it going? Hello, nice to meet you. Good afternoon. Good evening.
How are you? I'm fine, thanks. I'm good, and you? Not bad. Pretty good, thank you. I'm doing well.
What's your name? My name is Sam. Who are you? What are you? Are you a real person? Are you a robot?
Can you hear me? Can you hear me now? I can't hear you. Can you speak louder? Can you say that again?
Sorry, I didn't catch that. Could you repeat that please? What did you say? Pardon? Say it again slowly.
I have a question. I have a quick question about something. Can I ask you something? Can you help me?
I need some help. I need help with something. Please help me. Can you help me with this?
Yes. No. Yes please. No thanks. No thank you. Maybe. I don't know. I'm not sure. Sure. Of course. Okay.
Alright. Right. Exactly. That's right. That's not right. That's wrong. I think so. I don't think so.
Thank you. Thanks a lot. Thank you so much. Thanks for your help. That's very kind of you. You're welcome.
Goodbye. Bye. Bye bye. See you later. See you soon. Talk to you later. Have a good day. Have a nice evening.
That's all for now. That's everything. Nothing else, thanks. I'm done. I have to go now. We're finished.
Wait. Stop. Hold on. Hold on a second. Just a moment. One moment please. Let me think. Give me a minute.
No, I meant something else. That's not what I asked. Let me start again. Never mind. Forget it.
What can you do? What do you know? What can you tell me about it? Tell me more. Tell me about yourself.
Can you explain that? What does that mean? I don't understand. Can you explain it in a simple way?
How does it work? How do I do that? How long does it take? How much is it? How many are there?
Where is it? Where can I find it? Where are you? When is it? When does it start? When does it end?
Why is that? Why not? What happened? What's wrong? What's going on? What should I do now?
Is it free? Is it possible? Is it open now? Is it far from here? Is that true? Is there anything else?
Do you have it? Do you know? Do you like it? Do you have any suggestions? Do I need to book?
Can I have a look? Can I get some information? Can I get a copy? Can I come in? Can I bring a friend?
I would like to know more. I would like to book an appointment. I would like to make a reservation.
I want to talk to someone. I want to know the price. I want to buy something. I want to change it.
I'd like some information please. I'd like to ask about my booking. I'd like to check something.
Could you send me an email? Could you call me back? Could you check that for me? Could you tell me?
My email address is on the form. My phone number is the same. My name is spelled the usual way.
Today. Tomorrow. Yesterday. Tonight. This morning. This afternoon. This evening. Next week. Last week.
Monday. Tuesday. Wednesday. Thursday. Friday. Saturday. Sunday. On Monday morning. On Friday evening.
January. February. March. April. May. June. July. August. September. October. November. December.
At nine o'clock. At half past ten. At a quarter to six. In the morning. In the afternoon. At noon.
One. Two. Three. Four. Five. Six. Seven. Eight. Nine. Ten. Eleven. Twelve. Twenty. Fifty. A hundred.
The first one. The second one. The last one. The other one. This one. That one. Both of them. None.
It's about ten minutes. It takes an hour. Two or three days. About a week. More than a month.
The weather is nice today. It's sunny. It's raining. It's cold outside. It's very hot. It's windy.
I'm from England. I live in the city. I'm here on holiday. I'm visiting for a few days. I work here.
I'm looking for the station. I'm looking for a good restaurant. Where is the nearest hotel?
How do I get there? Is it within walking distance? Can I take the bus? Where can I park?
I'm hungry. I'm thirsty. I'm tired. I'm happy. I'm a bit worried. I'm in a hurry. I'm late.
That sounds good. That sounds great. That's great news. That's interesting. That's a good idea.
That's too expensive. That's too bad. That's a pity. I'm sorry to hear that. Oh no. Oh really?
Wow, that's amazing. Cool. Nice. Perfect. Wonderful. Fantastic. Brilliant. Awesome. Great, thanks.
Mm-hmm. Uh-huh. Yeah. Yeah, I see. I see. Oh, I see. Got it. Understood. Makes sense. Fair enough.
Um. Uh. Well. So. And. But. Because. Actually. Basically. Anyway. By the way. I mean. You know.
What about you? And you? How about tomorrow? What about the price? What about the other one?
Let's do it. Let's go. Let's try again. Let's talk about something else. Let's move on.
Please continue. Go on. Keep going. Carry on. Go ahead. Please tell me. Please wait.
Can you speak more slowly? Can you speak English? Do you speak Spanish? Can you translate this?
Is this the right place? Am I in the right place? Who should I talk to? Who is in charge?
I have a problem. Something is wrong. It doesn't work. It's broken. It stopped working.
I forgot my password. I can't log in. I can't find it. I lost it. I made a mistake.
How can I contact you? What's your phone number? What's your email address? Where is your office?
What are the opening times? Are you open today? What time is it? What day is it today?
I'll think about it. I'll let you know. I'll come back later. I'll call again tomorrow.
It was nice talking to you. It was a pleasure. Thanks for your time. Take care.
`;
